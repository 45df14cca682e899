//! The traits that tie a generated agent's name, parameters and output together.

use serde::Serialize;

use crate::decode::Record;
use crate::validate::ValidationError;

/// An agent of the service, implemented on its generated output record type (for example
/// `RetailerAPdp`): its name, its parameters type, and how its output decodes.
pub trait Agent: Record + Serialize + Clone + Send + Sync + 'static {
    /// The agent name used in calls (`retailer_a_pdp`).
    const NAME: &'static str;
    /// The generated parameters type.
    type Params: AgentParams<Agent = Self>;
}

/// The parameters of one agent run (`params` of `POST /v1/agents/run`).
pub trait AgentParams: Serialize + Clone + Send + Sync + 'static {
    /// The agent these parameters run.
    type Agent: Agent<Params = Self>;

    /// Checks the rules of the agent's input properties; nothing is sent when this fails.
    fn validate(&self) -> Result<(), ValidationError>;

    /// True when a localization parameter (such as `zip_code` or `store_id`) is set, so that the
    /// request must carry `localization`.
    fn uses_localization(&self) -> bool;
}

/// Marker for agents that accept localization (feature flag `is_localization_supported`, or an
/// input marked `is_localization_param`). Request options that localize are only available for
/// these agents, so localizing an agent that does not support it does not compile.
///
/// The params of a localized agent have its localization setters, and the client then sends
/// `localization` on its own:
///
/// ```
/// # #[cfg(feature = "catalog")] {
/// use agents_runtime::catalog::RetailerAPdpParams;
/// use agents_runtime::AgentParams;
/// assert!(RetailerAPdpParams::new("B08N5WRWNW").zip_code("10001").uses_localization());
/// # }
/// ```
///
/// An agent without localization has no such setter, so this is a compile error rather than a
/// 422 from the service:
///
/// ```compile_fail
/// use agents_runtime::catalog::LlmAParams;
/// let params = LlmAParams::new("hello").zip_code("10001");
/// ```
pub trait Localized: Agent {}

/// Agents with a pagination parameter: one call per page, the page number in `params`.
/// Page iteration is only available for these agents.
pub trait Paginated: Agent {
    /// JSON name of the pagination parameter (commonly `page`).
    const PAGE_PARAM: &'static str;
    /// The page the parameters ask for, if set.
    fn page(params: &Self::Params) -> Option<u32>;
    /// Sets the page to ask for.
    fn set_page(params: &mut Self::Params, page: u32);
}
