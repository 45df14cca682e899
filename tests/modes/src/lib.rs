//! The same agents through each front door, side by side.
#![deny(warnings)]

/// Build-script mode: `include!` of the builder's output.
pub mod built {
    include!(concat!(env!("OUT_DIR"), "/agents.rs"));
}

/// Macro mode.
pub mod expanded {
    agents_runtime::agent!("retailer_a_pdp");
    agents_runtime::agent!("llm_a");
    // A JSON Schema file a user wrote (`schemas/price_check.output.schema.json` of this package).
    agents_runtime::agent!("price_check");
    // A schema whose references read a shared file (`shared/price.json` of this package).
    agents_runtime::agent!(
        "shop_refs",
        documents = {"https://example.com/schemas/": "shared"}
    );
    // Inputs whose names the generator does not take for localization or paging, said by hand.
    agents_runtime::agent!(
        "store_finder",
        localized = ["postcode"],
        paginated = "page_no"
    );
}

/// The macro again, ten times, in ten modules: the expansion is generated once per process.
pub mod repeated {
    /// Copy 1.
    pub mod m1 {
        agents_runtime::agent!("retailer_a_pdp");
    }
    /// Copy 2.
    pub mod m2 {
        agents_runtime::agent!("retailer_a_pdp");
    }
    /// Copy 3.
    pub mod m3 {
        agents_runtime::agent!("retailer_a_pdp");
    }
    /// Copy 4.
    pub mod m4 {
        agents_runtime::agent!("retailer_a_pdp");
    }
    /// Copy 5.
    pub mod m5 {
        agents_runtime::agent!("retailer_a_pdp");
    }
    /// Copy 6.
    pub mod m6 {
        agents_runtime::agent!("retailer_a_pdp");
    }
    /// Copy 7.
    pub mod m7 {
        agents_runtime::agent!("retailer_a_pdp");
    }
    /// Copy 8.
    pub mod m8 {
        agents_runtime::agent!("retailer_a_pdp");
    }
    /// Copy 9.
    pub mod m9 {
        agents_runtime::agent!("retailer_a_pdp");
    }
    /// Copy 10.
    pub mod m10 {
        agents_runtime::agent!("retailer_a_pdp");
    }
}
