//! The traits that tie a generated agent's name, parameters and output together.

use serde::Serialize;

use crate::decode::Record;
use crate::validate::ValidationError;

/// An agent of the service, implemented on its generated output record type (for example
/// `RetailerAPdp`): its name, its parameters type, and how its output decodes (and, with the
/// `arrow` feature, its Arrow columns: see [`Columns`]).
pub trait Agent:
    Record + Serialize + serde::de::DeserializeOwned + Clone + Send + Sync + Columns + 'static
{
    /// The agent name used in calls (`retailer_a_pdp`).
    const NAME: &'static str;
    /// The JSON Schema of the agent's inputs (its params), as the generator read it: what
    /// `Client::publish` sends as the template's `input_schema`. The
    /// output's is [`Record::schema_text`].
    const INPUT_SCHEMA: &'static str;
    /// The generated parameters type.
    type Params: AgentParams<Agent = Self>;
}

/// With the `arrow` feature, [`Columnar`](crate::columnar::Columnar): every generated record
/// has its Arrow columns, so code generic over [`Agent`] can write any agent's records as a
/// table. Without the feature, nothing.
#[cfg(feature = "arrow")]
pub trait Columns: crate::columnar::Columnar {}
#[cfg(feature = "arrow")]
impl<T: crate::columnar::Columnar> Columns for T {}

/// With the `arrow` feature, [`Columnar`](crate::columnar::Columnar): every generated record
/// has its Arrow columns, so code generic over [`Agent`] can write any agent's records as a
/// table. Without the feature, nothing.
#[cfg(not(feature = "arrow"))]
pub trait Columns {}
#[cfg(not(feature = "arrow"))]
impl<T> Columns for T {}

/// Something to do with one agent's types, chosen by the agent's name at run time: the
/// generated `visit` function of a module of bindings (such as `agents_runtime::catalog::visit`)
/// calls [`AgentVisitor::visit`] with the agent's type.
///
/// ```
/// use agents_runtime::{Agent, AgentVisitor, catalog};
///
/// struct FieldCount;
/// impl AgentVisitor for FieldCount {
///     type Output = usize;
///     fn visit<A: Agent>(self) -> usize {
///         serde_json::to_value(A::default()).map_or(0, |v| v.as_object().map_or(0, |o| o.len()))
///     }
/// }
/// assert_eq!(catalog::visit("retailer_a_pdp", FieldCount), Some(0));
/// assert_eq!(catalog::visit("no_such_agent", FieldCount), None);
/// ```
pub trait AgentVisitor {
    /// What the visit gives back.
    type Output;
    /// Called with the agent's output record type.
    fn visit<A: Agent>(self) -> Self::Output;
}

/// The parameters of one agent run (the `params` of a run request).
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
/// use agents_runtime::catalog::RetailerAPdpParams;
/// use agents_runtime::AgentParams;
/// assert!(RetailerAPdpParams::new("B08N5WRWNW").zip_code("10001").uses_localization());
/// ```
///
/// An agent without localization has no such input, so this is a compile error rather than a
/// 422 from the service, and the message says so (through [`Localize`], in the prelude):
///
/// ```compile_fail
/// use agents_runtime::prelude::*;
/// use agents_runtime::catalog::LlmAParams;
/// // error: `LlmA` is not localized: it takes no localization input such as `zip_code` or `store_id`
/// let params = LlmAParams::new("hello").zip_code("10001");
/// ```
#[doc(alias = "zip_code", alias = "store_id", alias = "localization")]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not localized: it takes no localization input such as `zip_code` or `store_id`",
    label = "this agent is not localized",
    note = "only agents whose record supports localization implement `Localized`; run it without a location, or choose a localized agent"
)]
pub trait Localized: Agent {
    /// Sets the localization input `input` (`zip_code`, `store_id`) of `params` to `value`:
    /// its field where the params declare it as text, otherwise a parameter sent as given.
    /// What [`Localize`]'s methods call; the params' own setters do the same.
    fn localize(params: Self::Params, input: &'static str, value: String) -> Self::Params;
}

/// `zip_code` and `store_id` for the params of every agent, so that asking for a location on
/// an agent that is not localized is a compile error saying so (`Localized` is not
/// implemented), not a missing method. An agent whose params declare the input has its own
/// setter, which is the one called; this one is in the prelude.
pub trait Localize: AgentParams {
    /// The ZIP or postal code to run from.
    #[must_use]
    fn zip_code(self, value: impl Into<String>) -> Self
    where
        Self::Agent: Localized;

    /// The store to run from.
    #[must_use]
    fn store_id(self, value: impl Into<String>) -> Self
    where
        Self::Agent: Localized;
}

impl<P: AgentParams> Localize for P {
    fn zip_code(self, value: impl Into<String>) -> Self
    where
        P::Agent: Localized,
    {
        <P::Agent as Localized>::localize(self, "zip_code", value.into())
    }

    fn store_id(self, value: impl Into<String>) -> Self
    where
        P::Agent: Localized,
    {
        <P::Agent as Localized>::localize(self, "store_id", value.into())
    }
}

/// Agents with a pagination parameter: one call per page, the page number in `params`.
/// Page iteration is only available for these agents.
#[doc(alias = "pages", alias = "page")]
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no pages: its record declares no pagination input",
    label = "this agent's params ask for one page only",
    note = "run it once with `client.run(params)`; `client.pages` takes agents with a pagination input (such as `page`)"
)]
pub trait Paginated: Agent {
    /// JSON name of the pagination parameter (commonly `page`).
    const PAGE_PARAM: &'static str;
    /// The page the parameters ask for, if set.
    fn page(params: &Self::Params) -> Option<u32>;
    /// Sets the page to ask for.
    fn set_page(params: &mut Self::Params, page: u32);
}
