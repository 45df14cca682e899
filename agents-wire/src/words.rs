//! What each version of the interface calls things in bodies, queries and answers: one table
//! whose columns are the versions, beside [`crate::endpoint`]'s table of paths. The client
//! writes its bodies and the emulator reads them through it, so a name that differs between
//! versions is spelled here and nowhere else, and a third version would be a third column.
//!
//! ```
//! use agents_wire::ApiVersion;
//!
//! assert_eq!(ApiVersion::V1.words().generation_from, "from_agent");
//! assert_eq!(ApiVersion::V2.words().generation_from, "from_extract_template");
//! assert_eq!(ApiVersion::V2.words().name, "v2");
//! ```

use serde_json::{Map, Value};

use crate::endpoint::ApiVersion;

/// How a version pages a list of jobs, runs and artifacts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Paging {
    /// `page` (from 1) and `per_page`; the answer says `page`, `per_page` and `total`.
    Numbered,
    /// `limit` and `offset`; the answer says `total`.
    Offset,
}

macro_rules! words {
    (
        texts { $( $(#[$tdoc:meta])* $text:ident = $($tcol:literal),+; )* }
        others { $( $(#[$odoc:meta])* $other:ident: $ty:ty = $($ocol:expr),+; )* }
    ) => {
        /// One column of the table: everything a version spells its own way.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        #[non_exhaustive]
        pub struct Words {
            $( $(#[$tdoc])* pub $text: &'static str, )*
            $( $(#[$odoc])* pub $other: $ty, )*
        }

        /// The table: one column per version, in [`ApiVersion::ALL`]'s order.
        pub const TABLE: [Words; ApiVersion::ALL.len()] = words!(@columns
            [$( $text [$($tcol),+] )* $( $other [$($ocol),+] )*]
        );

        impl Words {
            /// Every text row as `(row, this version's spelling)`: what a check that no
            /// spelling is written twice reads.
            pub fn texts(&self) -> Vec<(&'static str, &'static str)> {
                vec![$( (stringify!($text), self.$text) ),*]
            }
        }
    };
    // Two columns today; a third version adds `$c` to this rule and a value to every row.
    (@columns [$( $row:ident [$a:expr, $b:expr] )*]) => {
        [Words { $( $row: $a, )* }, Words { $( $row: $b, )* }]
    };
}

words! {
    texts {
        /// The version's name: the first segment of every path (`v1`), what `AGENTS_API_VERSION`
        /// and `--api-version` take, and how messages name it.
        name = "v1", "v2";
        /// What messages call the thing a run names, singular (an unknown one, one that is
        /// not the caller's to refine).
        noun = "agent", "extract template";
        /// The run, async and batch request field naming the agent or template to run.
        run_field = "agent", "template";
        /// The field naming an agent or template in job bodies, and the parameter an unknown
        /// one is reported at.
        template_ref = "agent_name", "extract_template_name";
        /// What a generation request and record call the agent or template it makes.
        generation_name = "agent_name", "name";
        /// What a generation request calls the agent or template it refines.
        generation_from = "from_agent", "from_extract_template";
        /// What a research agent record calls its skill.
        skill = "domain_expertise", "skill";
        /// The search depth used when a request names none.
        search_depth_default = "fast", "lite";
    }
    others {
        /// Other names a generation request may give the agent it makes (`/v1` also takes
        /// `name`).
        generation_name_aliases: &'static [&'static str] = &["name"], &[];
        /// The efforts of research agents and runs.
        efforts: &'static [&'static str] =
            &["low", "medium", "high", "x-high", "max"],
            &["low", "medium", "high", "x-high", "5x-high", "max"];
        /// Research run fields the version does not have.
        research_run_absent: &'static [&'static str] =
            &["agent_name", "skill", "use_case", "origin"], &[];
        /// The search depths the version knows.
        search_depths: &'static [&'static str] = &["lite", "fast", "deep"], &["lite", "standard"];
        /// How job, run and artifact lists page.
        paging: Paging = Paging::Numbered, Paging::Offset;
    }
}

/// The params that localize an agent request whatever the record declares, in every version.
pub const LOCALIZATION_PARAMS: [&str; 2] = ["zip_code", "store_id"];

/// The version whose words records are kept in: the client's request builders before
/// [`respell`] and the emulator's state.
pub const KEPT: ApiVersion = ApiVersion::V2;

impl ApiVersion {
    /// This version's column of the table.
    pub fn words(self) -> &'static Words {
        &TABLE[self as usize]
    }
}

/// Moves every field of `map` named by a text row from `from`'s spelling to `to`'s: how a
/// record kept in one version's words is answered in another's. `rows` picks the rows, e.g.
/// `&[|w| w.skill]`.
pub fn respell(
    map: &mut Map<String, Value>,
    rows: &[fn(&Words) -> &'static str],
    from: ApiVersion,
    to: ApiVersion,
) {
    for row in rows {
        let (old, new) = (row(from.words()), row(to.words()));
        if old != new
            && let Some(v) = map.remove(old)
        {
            map.insert(new.to_owned(), v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endpoint;

    #[test]
    fn columns_follow_the_versions_and_paths_start_with_the_name() {
        for version in ApiVersion::ALL {
            let name = version.words().name;
            assert_eq!(name.parse::<ApiVersion>(), Ok(version));
            for e in endpoint::ALL {
                if let Some(path) = e.path(version) {
                    assert!(
                        path.starts_with(&format!("/{name}/")) || path == format!("/{name}"),
                        "{} in {name}: {path}",
                        e.name
                    );
                }
            }
        }
    }

    #[test]
    fn respell_moves_only_named_rows() {
        let mut m = Map::new();
        m.insert("skill".into(), Value::from("pricing"));
        m.insert("goals".into(), Value::from(1));
        respell(&mut m, &[|w| w.skill], ApiVersion::V2, ApiVersion::V1);
        assert_eq!(m.get("domain_expertise"), Some(&Value::from("pricing")));
        assert!(!m.contains_key("skill"));
        assert_eq!(m.get("goals"), Some(&Value::from(1)));
        respell(&mut m, &[|w| w.skill], ApiVersion::V1, ApiVersion::V2);
        assert_eq!(m.get("skill"), Some(&Value::from("pricing")));
    }
}
