//! A schema read once into nodes: every keyword that constrains a value becomes a field of a
//! [`Keywords`], every reference an index, every pattern a compiled expression. Identifiers
//! (`$id`, `$anchor`, `$dynamicAnchor`) are indexed first, over the schema, the documents the
//! caller supplies and the bundled metaschemas, so a reference is resolved wherever it points.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Map, Value};
use url::Url;

use crate::instance::{Instance, Kind, is_integer};
use crate::path::{pointer_to, push_pointer_segment};
use crate::pattern::Pattern;

/// A node's index in [`Schema::nodes`](crate::Schema).
pub(crate) type NodeId = usize;

/// The base URI of a schema that declares none.
pub const DEFAULT_BASE: &str = "json-schema:///";

/// Whether a schema whose metaschema is `meta` has its value keywords checked: unless the
/// metaschema lists its vocabularies without the validation one.
fn validates(meta: Option<&Value>) -> bool {
    match meta.and_then(|m| m.get("$vocabulary")) {
        Some(Value::Object(vocabularies)) => vocabularies
            .keys()
            .any(|v| v.ends_with("/vocab/validation")),
        _ => true,
    }
}

/// The bundled metaschemas a schema names as its `$schema` whose vocabularies include
/// validation (checked against the bundled documents by a test).
const BUNDLED_VALIDATING: [&str; 5] = [
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-04/schema",
];

/// The metaschemas every schema may refer to, by URI.
const METASCHEMAS: &[(&str, &str)] = &[
    (
        "https://json-schema.org/draft/2020-12/schema",
        include_str!("../metaschemas/draft2020-12/schema.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/core",
        include_str!("../metaschemas/draft2020-12/core.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/applicator",
        include_str!("../metaschemas/draft2020-12/applicator.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/unevaluated",
        include_str!("../metaschemas/draft2020-12/unevaluated.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/validation",
        include_str!("../metaschemas/draft2020-12/validation.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/meta-data",
        include_str!("../metaschemas/draft2020-12/meta-data.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/format-annotation",
        include_str!("../metaschemas/draft2020-12/format-annotation.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/format-assertion",
        include_str!("../metaschemas/draft2020-12/format-assertion.json"),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/content",
        include_str!("../metaschemas/draft2020-12/content.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/schema",
        include_str!("../metaschemas/draft2019-09/schema.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/core",
        include_str!("../metaschemas/draft2019-09/core.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/applicator",
        include_str!("../metaschemas/draft2019-09/applicator.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/validation",
        include_str!("../metaschemas/draft2019-09/validation.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/meta-data",
        include_str!("../metaschemas/draft2019-09/meta-data.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/format",
        include_str!("../metaschemas/draft2019-09/format.json"),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/content",
        include_str!("../metaschemas/draft2019-09/content.json"),
    ),
    (
        "http://json-schema.org/draft-07/schema",
        include_str!("../metaschemas/draft-07.json"),
    ),
    (
        "http://json-schema.org/draft-06/schema",
        include_str!("../metaschemas/draft-06.json"),
    ),
    (
        "http://json-schema.org/draft-04/schema",
        include_str!("../metaschemas/draft-04.json"),
    ),
];

/// Which rules a schema follows: draft 7 and draft 2020-12 spell some keywords differently
/// (`items` as a list, `dependencies`, `$ref` beside other keywords).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Draft {
    /// Draft 7, and 6 and 4 (draft 4's `id` for `$id` and its boolean `exclusiveMinimum` /
    /// `exclusiveMaximum` are read as that draft means them).
    Draft7,
    /// Draft 2020-12 (and 2019-09).
    Draft2020,
}

impl Draft {
    pub(crate) fn from_meta(uri: &str) -> Option<Draft> {
        let uri = uri.trim_end_matches('#');
        if uri.contains("draft-07") || uri.contains("draft-06") || uri.contains("draft-04") {
            Some(Draft::Draft7)
        } else if uri.contains("2020-12") || uri.contains("2019-09") {
            Some(Draft::Draft2020)
        } else {
            None
        }
    }
}

/// Something in a schema that cannot be honoured, or bounds no value keeps (most likely a slip),
/// with its JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// What kind of problem.
    pub kind: ProblemKind,
    /// Where, as a JSON pointer into the document it is in (`/properties/when/type`).
    pub pointer: String,
    /// That document's URI when it is not the schema compiled but one a reference read (a
    /// document supplied, or a file under a directory).
    pub document: Option<String>,
    /// The file that document was read from, when [`Options::directory`](crate::Options::directory)
    /// mapped its URI to one: where a user goes to fix it.
    pub file: Option<PathBuf>,
    /// What is wrong and what is done instead.
    pub message: String,
}

/// The kinds of [`Problem`]: whether a type made from the schema would be wrong, or only a
/// check is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemKind {
    /// A `type` name JSON Schema does not define (`"strng"`): no value has it, so a type made
    /// from the schema would be wrong.
    UnknownType,
    /// A reference that points to nothing, or is not a URI: what it stands for is unknown.
    Reference,
    /// A schema that is neither an object nor a boolean.
    NotASchema,
    /// An `$id` or base URI that does not parse.
    Identifier,
    /// A pattern that does not compile: it is not checked.
    Pattern,
    /// A keyword of another draft than the one `$schema` declares (`items` as a list or
    /// `dependencies` in 2020-12, `unevaluatedProperties` in draft 7): ignored, as that
    /// draft's validators ignore it.
    OtherDraft,
    /// A schema that refers back to itself without descending into the value (through `$ref`,
    /// `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else` or `dependentSchemas`): checking
    /// a value that reaches it again would not end, so the check stops 4,096 schemas deep and
    /// fails with a breach of [`DEPTH_KEYWORD`](crate::DEPTH_KEYWORD).
    Loop,
    /// Bounds no value of a kind can keep (`"minimum": 5, "maximum": 3`; `minLength` above
    /// `maxLength`): valid JSON Schema, checked as written, but every number (string, array,
    /// object) there breaks one of them, which is most likely a slip.
    Unsatisfiable,
    /// A keyword whose value is of a JSON type it does not take (`"minimum": "five"`, a
    /// `pattern` that is a number): it is not read, so its check (or annotation) is missing.
    WrongKind,
    /// Text that does not read as JSON: a file a reference names (references to it are not
    /// followed), or the text given to [`Schema::from_text`](crate::Schema::from_text) (which
    /// then checks nothing).
    Unreadable,
    /// A key given twice in one object of a text read: every JSON reader keeps only the last,
    /// so a property defined twice is whichever came last. Found in the files references read
    /// and by [`Schema::from_text`](crate::Schema::from_text); a schema compiled from a
    /// `Value` has lost its repeats.
    RepeatedKey,
}

impl ProblemKind {
    /// True when a type made from the schema would be wrong (not only a check missing).
    pub fn breaks_the_type(self) -> bool {
        matches!(
            self,
            ProblemKind::UnknownType
                | ProblemKind::Reference
                | ProblemKind::NotASchema
                | ProblemKind::Unreadable
                | ProblemKind::RepeatedKey
        )
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.file, &self.document) {
            (Some(file), _) => write!(f, "{}#{}", file.display(), self.pointer)?,
            (None, Some(uri)) => write!(f, "{uri}#{}", self.pointer)?,
            (None, None) if self.pointer.is_empty() => f.write_str("the schema's root")?,
            (None, None) => f.write_str(&self.pointer)?,
        }
        write!(f, ": {}", self.message)
    }
}

/// The names of a `type` keyword as bits, one per kind (`integer` apart): a check is one AND.
/// A name JSON Schema does not define adds none, so no value has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Types(u8);

impl Types {
    const INTEGER: u8 = 1 << 6;

    pub(crate) fn bit(kind: Kind) -> u8 {
        match kind {
            Kind::Null => 1,
            Kind::Boolean => 1 << 1,
            Kind::Number => 1 << 2,
            Kind::String => 1 << 3,
            Kind::Array => 1 << 4,
            Kind::Object => 1 << 5,
        }
    }

    pub(crate) fn of(names: &[&str]) -> Types {
        Types(names.iter().fold(0, |bits, name| {
            bits | match *name {
                "null" => Types::bit(Kind::Null),
                "boolean" => Types::bit(Kind::Boolean),
                "number" => Types::bit(Kind::Number),
                "string" => Types::bit(Kind::String),
                "array" => Types::bit(Kind::Array),
                "object" => Types::bit(Kind::Object),
                "integer" => Types::INTEGER,
                _ => 0,
            }
        }))
    }

    /// The kinds allowed, one bit each as in [`Types::of`], with `integer` set wherever
    /// `number` is.
    #[cfg_attr(not(feature = "sample"), allow(dead_code))]
    pub(crate) fn kinds(self) -> u8 {
        if self.0 & Types::bit(Kind::Number) != 0 {
            self.0 | Types::INTEGER
        } else {
            self.0
        }
    }

    /// The kinds a value of these types may be, one bit each as [`Types::bit`] gives them
    /// (`integer` counts as a number).
    fn kind_mask(self) -> u8 {
        let number = if self.0 & Types::INTEGER != 0 {
            Types::bit(Kind::Number)
        } else {
            0
        };
        (self.0 & ALL_KINDS) | number
    }

    /// True when a value of `kind` (`inst`) has one of the types.
    pub(crate) fn allows(self, inst: &dyn Instance, kind: Kind) -> bool {
        self.0 & Types::bit(kind) != 0
            || (kind == Kind::Number
                && self.0 & Types::INTEGER != 0
                && inst.as_f64().is_some_and(is_integer))
    }
}

/// Every kind, one bit each as [`Types::bit`] gives them.
const ALL_KINDS: u8 = 0x3f;

/// The bit of the kind of `value`, as [`Types::bit`] gives it.
fn kind_bit(value: &Value) -> u8 {
    Types::bit(value.kind())
}

/// How a keyword holds subschemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Holds {
    /// An object of them by name (`properties`, `$defs`, …).
    Named,
    /// A list of them, or one (`allOf`, `items`: a list in draft 7's tuples).
    Listed,
    /// One (`not`, `additionalProperties`, …).
    One,
}

/// Where `keyword` keeps subschemas, in either draft; `None` for a keyword that holds none.
/// Every walk over a schema's subschemas asks here.
pub(crate) fn holds(keyword: &str) -> Option<Holds> {
    match keyword {
        "$defs" | "definitions" | "properties" | "patternProperties" | "dependentSchemas"
        | "dependencies" => Some(Holds::Named),
        "allOf" | "anyOf" | "oneOf" | "prefixItems" | "items" => Some(Holds::Listed),
        "additionalProperties"
        | "additionalItems"
        | "contains"
        | "not"
        | "if"
        | "then"
        | "else"
        | "propertyNames"
        | "unevaluatedItems"
        | "unevaluatedProperties" => Some(Holds::One),
        _ => None,
    }
}

/// Whether `value` is of a JSON type `keyword` takes, and what it takes, for the keywords of a
/// schema object that hold no subschema (one that does is checked where it is compiled:
/// `NotASchema`); `None` for any other key. The one list of them.
fn takes(keyword: &str, value: &Value) -> Option<(bool, &'static str)> {
    let names = |v: &Value| v.as_array().is_some_and(|l| l.iter().all(Value::is_string));
    Some(match keyword {
        "multipleOf" | "maximum" | "minimum" => (value.is_number(), "a number"),
        // Draft 4's exclusive bounds are booleans beside `maximum` and `minimum`.
        "exclusiveMaximum" | "exclusiveMinimum" => {
            (value.is_number() || value.is_boolean(), "a number")
        }
        "maxLength" | "minLength" | "maxItems" | "minItems" | "maxContains" | "minContains"
        | "maxProperties" | "minProperties" => (
            // `2.0` is a count too: a number with no fraction is an integer in JSON Schema.
            value.as_f64().is_some_and(|n| n >= 0.0 && n.fract() == 0.0),
            "a whole number, not negative",
        ),
        "uniqueItems" => (value.is_boolean(), "a boolean"),
        "pattern" | "format" | "title" | "description" | "$ref" | "$dynamicRef"
        | "$recursiveRef" => (value.is_string(), "text"),
        "enum" | "examples" => (value.is_array(), "a list"),
        "required" => (names(value), "a list of property names"),
        "dependentRequired" => (
            value.as_object().is_some_and(|m| m.values().all(names)),
            "an object of lists of property names",
        ),
        _ => return None,
    })
}

/// The bit of a keyword `Compiler::build` reads, in [`Present`].
#[inline(always)]
fn read_bit(keyword: &str) -> Option<u32> {
    match keyword {
        "$ref" => Some(0),
        "$dynamicRef" => Some(1),
        "format" => Some(2),
        "examples" => Some(3),
        "type" => Some(4),
        "enum" => Some(5),
        "const" => Some(6),
        "multipleOf" => Some(7),
        "maximum" => Some(8),
        "minimum" => Some(9),
        "exclusiveMaximum" => Some(10),
        "exclusiveMinimum" => Some(11),
        "maxLength" => Some(12),
        "minLength" => Some(13),
        "maxItems" => Some(14),
        "minItems" => Some(15),
        "uniqueItems" => Some(16),
        "maxContains" => Some(17),
        "minContains" => Some(18),
        "maxProperties" => Some(19),
        "minProperties" => Some(20),
        "required" => Some(21),
        "dependentRequired" => Some(22),
        "pattern" => Some(23),
        "allOf" => Some(24),
        "anyOf" => Some(25),
        "oneOf" => Some(26),
        "not" => Some(27),
        "if" => Some(28),
        "then" => Some(29),
        "else" => Some(30),
        "contains" => Some(31),
        "additionalProperties" => Some(32),
        "propertyNames" => Some(33),
        "unevaluatedItems" => Some(34),
        "unevaluatedProperties" => Some(35),
        "items" => Some(36),
        "additionalItems" => Some(37),
        "prefixItems" => Some(38),
        "properties" => Some(39),
        "patternProperties" => Some(40),
        "dependentSchemas" => Some(41),
        "dependencies" => Some(42),
        "$recursiveRef" => Some(43),
        _ => None,
    }
}

/// A schema object with the set of keywords `build` reads that it holds, found in one pass
/// over its keys: most subschemas hold two or three of the 43, and a search of the object for
/// each of the others would be a third of a compile.
struct Present<'a> {
    map: &'a Map<String, Value>,
    held: u64,
}

impl<'a> Present<'a> {
    fn new(map: &'a Map<String, Value>) -> Self {
        let held = map
            .keys()
            .filter_map(|k| read_bit(k))
            .fold(0u64, |held, bit| held | 1 << bit);
        Present { map, held }
    }

    /// The value of `keyword`, one `read_bit` knows.
    #[inline(always)]
    fn get(&self, keyword: &str) -> Option<&'a Value> {
        match read_bit(keyword) {
            Some(bit) if self.held & 1 << bit == 0 => None,
            Some(_) => self.map.get(keyword),
            None => {
                debug_assert!(false, "`{keyword}` is not one of read_bit's keywords");
                self.map.get(keyword)
            }
        }
    }

    fn contains_key(&self, keyword: &str) -> bool {
        self.get(keyword).is_some()
    }

    /// Reads on as if the object did not hold `keyword`.
    fn forget(&mut self, keyword: &str) {
        if let Some(bit) = read_bit(keyword) {
            self.held &= !(1 << bit);
        }
    }
}

/// A `$dynamicRef`: its static target, and the anchor name when the target is a dynamic anchor
/// (only then does the dynamic scope decide).
#[derive(Debug)]
pub(crate) struct Dynamic {
    pub target: NodeId,
    pub anchor: Option<String>,
}

/// One schema object's keywords; absent ones are `None` or empty.
#[derive(Debug, Default)]
pub(crate) struct Keywords {
    /// Which loaded document, and the JSON pointer of this schema in it (for reports).
    pub doc: usize,
    pub at: String,
    /// The resource this node belongs to: entering it puts the resource in the dynamic scope.
    pub resource: Option<usize>,
    pub reference: Option<NodeId>,
    pub dynamic: Option<Dynamic>,
    pub types: Option<Types>,
    pub enumeration: Option<Vec<Value>>,
    pub constant: Option<Value>,
    pub multiple_of: Option<f64>,
    pub maximum: Option<f64>,
    pub exclusive_maximum: Option<f64>,
    pub minimum: Option<f64>,
    pub exclusive_minimum: Option<f64>,
    pub max_length: Option<u64>,
    pub min_length: Option<u64>,
    pub pattern: Option<Pattern>,
    pub max_items: Option<u64>,
    pub min_items: Option<u64>,
    pub unique_items: bool,
    pub max_contains: Option<u64>,
    pub min_contains: Option<u64>,
    pub max_properties: Option<u64>,
    pub min_properties: Option<u64>,
    pub required: Vec<String>,
    pub dependent_required: Vec<(String, Vec<String>)>,
    /// The keyword `dependent_required` came from, for reports: `dependentRequired`, or draft 7's
    /// `dependencies` (whose lists of names mean the same).
    pub dependent_required_keyword: &'static str,
    pub all_of: Vec<NodeId>,
    pub any_of: Vec<NodeId>,
    pub one_of: Vec<NodeId>,
    pub not: Option<NodeId>,
    pub if_: Option<NodeId>,
    pub then: Option<NodeId>,
    pub else_: Option<NodeId>,
    pub dependent_schemas: Vec<(String, NodeId)>,
    pub prefix_items: Vec<NodeId>,
    /// `items` (2020-12) or `additionalItems` (draft 7): every item after `prefix_items`.
    pub items: Option<NodeId>,
    /// The keyword `items` came from, for reports.
    pub items_keyword: &'static str,
    pub prefix_keyword: &'static str,
    pub contains: Option<NodeId>,
    pub properties: Vec<(String, NodeId)>,
    /// `properties` by name: [`Keywords::property`].
    pub by_name: foldhash::HashMap<Box<str>, NodeId>,
    pub pattern_properties: Vec<(Pattern, NodeId)>,
    pub additional_properties: Option<NodeId>,
    pub property_names: Option<NodeId>,
    pub unevaluated_items: Option<NodeId>,
    pub unevaluated_properties: Option<NodeId>,
    /// `format`: the checks do not assert it (an annotation in 2020-12 unless a vocabulary
    /// says otherwise); values made for the schema honour it.
    pub format: Option<Box<str>>,
    /// `examples`, when there are some: values made for the schema may be one.
    pub examples: Option<Vec<Value>>,
    /// Nothing but `type` (or nothing at all) to check: the walk's fast path.
    pub only_types: bool,
    /// Nothing but `type`, `properties`, `required`, a single `items` schema, and the schemas
    /// `$ref` and `allOf` bring in (the sampler makes a value for those together with these): a
    /// value of the right kind with every named property and its items made for their schemas
    /// meets these keywords once its parts meet theirs, so the sampler checks only the parts.
    pub only_parts: bool,
    /// Nothing but `type`, `properties` and a single `items` schema, and the same holds for
    /// each schema under `properties` and `items`: a value whose Rust type was generated from
    /// this schema and is [`Instance::exact`] meets it.
    pub implied: bool,
    /// No keyword that the generator may merge into the types of the values at `properties`
    /// and `items` (no in-place applicator, no `patternProperties`, `prefixItems` or
    /// `contains`): their types were made from their own schemas when this one's was.
    pub keeps_types: bool,
    /// `$ref` and nothing else that constrains a value: the type made for it is its target's.
    pub only_reference: bool,
    /// The positions in `properties` of those whose schema is a `const` or an `enum` (or a
    /// `$ref` to one): a probe (a branch of `oneOf`, `anyOf`, `if`) looks at them first, as they
    /// tell the branches apart at the cost of a comparison.
    pub discriminants: Box<[usize]>,
    /// The kinds of value that cannot pass, one bit each as [`Types::bit`] gives them, from
    /// `type`, `const`, `enum` and what `$ref` and `allOf` bring: a branch of `anyOf` or
    /// `oneOf` a value's kind cannot pass is not tried. Never more than certainly fail.
    pub rejects: u8,
}

/// Which keywords besides `type` [`Keywords::only_types_besides`] lets by.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Besides {
    Nothing,
    /// `properties` and a single `items` schema.
    Structure,
    /// Those, `required`, `$ref` and `allOf`.
    Parts,
}

impl Keywords {
    /// The schema of the declared property `key`.
    pub fn property(&self, key: &str) -> Option<NodeId> {
        self.by_name.get(key).copied()
    }

    /// Sets the flags that say what a node holds, once the keywords are read (`implied`
    /// waits for the children: [`settle_implied`]).
    fn settle(&mut self) {
        self.by_name = self
            .properties
            .iter()
            .map(|(name, id)| (name.as_str().into(), *id))
            .collect();
        self.only_types = self.only_types_besides(Besides::Nothing);
        self.only_parts = self.only_types_besides(Besides::Parts);
        self.implied = self.only_types_besides(Besides::Structure);
        self.keeps_types = self.reference.is_none()
            && self.dynamic.is_none()
            && self.all_of.is_empty()
            && self.any_of.is_empty()
            && self.one_of.is_empty()
            && [self.not, self.if_, self.then, self.else_, self.contains]
                .iter()
                .all(Option::is_none)
            && self.dependent_schemas.is_empty()
            && self.pattern_properties.is_empty()
            && self.prefix_items.is_empty()
            && self.unevaluated_items.is_none()
            && self.unevaluated_properties.is_none();
        self.only_reference = self.reference.is_some()
            && self.only_parts
            && self.types.is_none()
            && self.required.is_empty()
            && self.all_of.is_empty()
            && self.properties.is_empty()
            && self.items.is_none();
    }

    /// True when no keyword but `type` and those `besides` lets by constrains a value here
    /// (every field is named, so that a keyword added later must say whether it is one).
    fn only_types_besides(&self, besides: Besides) -> bool {
        let parts = besides == Besides::Parts;
        let structure = besides >= Besides::Structure;
        let Keywords {
            doc: _,
            at: _,
            resource: _,
            reference,
            dynamic,
            types: _,
            enumeration,
            constant,
            multiple_of,
            maximum,
            exclusive_maximum,
            minimum,
            exclusive_minimum,
            max_length,
            min_length,
            pattern,
            max_items,
            min_items,
            unique_items,
            max_contains,
            min_contains,
            max_properties,
            min_properties,
            required,
            dependent_required,
            all_of,
            any_of,
            one_of,
            not,
            if_,
            then,
            else_,
            dependent_schemas,
            prefix_items,
            items,
            items_keyword: _,
            prefix_keyword: _,
            dependent_required_keyword: _,
            contains,
            properties,
            by_name: _,
            pattern_properties,
            additional_properties,
            property_names,
            unevaluated_items,
            unevaluated_properties,
            format: _,
            examples: _,
            only_types: _,
            only_parts: _,
            implied: _,
            keeps_types: _,
            only_reference: _,
            discriminants: _,
            rejects: _,
        } = self;
        (parts || reference.is_none())
            && dynamic.is_none()
            && enumeration.is_none()
            && constant.is_none()
            && [
                multiple_of,
                maximum,
                exclusive_maximum,
                minimum,
                exclusive_minimum,
            ]
            .iter()
            .all(|n| n.is_none())
            && [
                max_length,
                min_length,
                max_items,
                min_items,
                max_contains,
                min_contains,
                max_properties,
                min_properties,
            ]
            .iter()
            .all(|n| n.is_none())
            && pattern.is_none()
            && !unique_items
            && (parts || required.is_empty())
            && dependent_required.is_empty()
            && (parts || all_of.is_empty())
            && any_of.is_empty()
            && one_of.is_empty()
            && [
                not,
                if_,
                then,
                else_,
                contains,
                additional_properties,
                property_names,
                unevaluated_items,
                unevaluated_properties,
            ]
            .iter()
            .all(|n| n.is_none())
            && (structure || items.is_none())
            && dependent_schemas.is_empty()
            && prefix_items.is_empty()
            && (structure || properties.is_empty())
            && pattern_properties.is_empty()
    }
}

/// A schema node: a boolean schema, or an object of keywords.
#[derive(Debug)]
pub(crate) enum Node {
    /// `true` or `{}`.
    Always,
    /// `false`, with its document (an index into `docs`) and its JSON pointer there.
    Never(usize, String),
    /// A schema object.
    Keywords(Box<Keywords>),
    /// Not compiled yet (only while compiling).
    Pending,
}

/// A resource (a schema with its own base URI) and its dynamic anchors.
#[derive(Debug, Default)]
pub(crate) struct Resource {
    pub dynamic_anchors: foldhash::HashMap<String, NodeId>,
}

/// A document the compiler read: its base URI and its JSON, shared so that the compiler reads a
/// node's keywords while it adds nodes (a copy of each subtree would cost time quadratic in the
/// schema's depth).
struct Document {
    uri: String,
    value: Arc<Value>,
    /// Read from the caller's documents or directories (not the schema, not a metaschema).
    supplied: bool,
    /// The text of a document read from a file, whose key order `value` does not keep.
    text: Option<Arc<str>>,
    /// The file it was read from, through a directory.
    file: Option<PathBuf>,
}

/// Where a URI points: a document and a JSON pointer in it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Location {
    doc: usize,
    pointer: String,
}

/// What the index knows of a schema object it walked over. Shared parts are `Arc`s: every
/// subschema of a resource holds the same base, and the compiler reads this once per node.
#[derive(Debug, Clone)]
struct Scanned {
    base: Arc<Url>,
    /// `base` without its fragment, as text: the name of its resource.
    resource: Arc<str>,
    draft: Draft,
    /// The metaschema in effect (`$schema`, resolved), which decides whether value keywords
    /// are checked once every document is indexed.
    meta: Option<Arc<str>>,
    /// The draft the schema declares, finely (read from `meta` once, not per node).
    edition: Edition,
}

impl Scanned {
    fn new(base: Url, draft: Draft, meta: Option<Arc<str>>) -> Self {
        Scanned {
            resource: key(&base).into(),
            base: Arc::new(base),
            draft,
            edition: Edition::of(meta.as_deref(), draft),
            meta,
        }
    }
}

pub(crate) struct Compiled {
    pub nodes: Vec<Node>,
    /// Where each node's schema is: a document of `docs` and a JSON pointer in it.
    pub locations: Vec<(usize, String)>,
    pub resources: Vec<Resource>,
    pub docs: Vec<Value>,
    pub doc_uris: Vec<String>,
    /// Which of `docs` were supplied by the caller (bundled with the schema).
    pub supplied: Vec<bool>,
    /// The text of each of `docs` read from a file, and that file.
    pub texts: Vec<Option<(Arc<str>, PathBuf)>>,
    pub root: NodeId,
    /// The files documents were read from (through the caller's directories).
    pub files: Vec<PathBuf>,
    pub tracks_evaluation: bool,
    pub problems: Vec<Problem>,
}

impl Compiled {
    /// True when node `id` says nothing but what a type generated from it holds
    /// ([`Keywords::implied`]).
    pub(crate) fn implied(&self, id: NodeId) -> bool {
        matches!(&self.nodes[id], Node::Keywords(k) if k.implied)
    }

    /// True when no value of `kind` passes node `id` (told by its kinds alone; `false` when
    /// unsure).
    pub(crate) fn rejects(&self, id: NodeId, kind: Kind) -> bool {
        match &self.nodes[id] {
            Node::Keywords(k) => k.rejects & Types::bit(kind) != 0,
            Node::Never(..) => true,
            Node::Always | Node::Pending => false,
        }
    }
}

pub(crate) struct Compiler {
    docs: Vec<Document>,
    /// Absolute URIs (resources without fragment, and `base#anchor`) to locations.
    index: foldhash::HashMap<String, Location>,
    /// Every schema object walked, by document and pointer.
    scanned: Vec<foldhash::HashMap<String, Scanned>>,
    /// What a location no schema object encloses gets (the default base, draft 2020-12).
    outside: Scanned,
    /// Whether each metaschema met turns on the validation vocabulary.
    validates: foldhash::HashMap<Arc<str>, bool>,
    /// Dynamic anchors declared in each resource: resource URI to (name, location).
    dynamic_anchors: foldhash::HashMap<String, Vec<(String, Location)>>,
    remotes: HashMap<String, Value>,
    directories: Vec<(String, PathBuf)>,
    files: Vec<PathBuf>,
    loaded: std::collections::HashSet<String>,
    nodes: Vec<Node>,
    memo: foldhash::HashMap<Location, NodeId>,
    pending: Vec<(NodeId, Location)>,
    resources: Vec<Resource>,
    resource_of: foldhash::HashMap<String, usize>,
    problems: Vec<Problem>,
    tracks_evaluation: bool,
}

/// The schemas a value is checked against where it stands (not its properties or items):
/// `$ref` and the in-place applicators. (`$dynamicRef` is left out: where it lands depends on
/// the path the check took, so a loop through it is not certain.)
fn in_place(k: &Keywords) -> impl Iterator<Item = NodeId> + '_ {
    k.reference
        .into_iter()
        .chain(k.all_of.iter().copied())
        .chain(k.any_of.iter().copied())
        .chain(k.one_of.iter().copied())
        .chain(k.not)
        .chain(k.if_)
        .chain(k.then)
        .chain(k.else_)
        .chain(k.dependent_schemas.iter().map(|(_, id)| *id))
}

/// Each schema where a loop of [`in_place`] edges closes, once: a depth-first walk without
/// recursion (a schema may chain references thousands deep), an edge back to a schema still
/// on the walk's path being a loop.
fn loops(nodes: &[Node]) -> Vec<NodeId> {
    const NEW: u8 = 0;
    const ON_PATH: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; nodes.len()];
    let mut closes = vec![false; nodes.len()];
    let mut found = Vec::new();
    let edges = |id: NodeId| -> Vec<NodeId> {
        match &nodes[id] {
            Node::Keywords(k) => in_place(k).collect(),
            _ => Vec::new(),
        }
    };
    for start in 0..nodes.len() {
        if state[start] != NEW {
            continue;
        }
        state[start] = ON_PATH;
        let mut path = vec![(start, edges(start), 0usize)];
        while let Some((id, next, at)) = path.last_mut() {
            let Some(&to) = next.get(*at) else {
                state[*id] = DONE;
                path.pop();
                continue;
            };
            *at += 1;
            match state[to] {
                NEW => {
                    state[to] = ON_PATH;
                    path.push((to, edges(to), 0));
                }
                ON_PATH if !closes[to] => {
                    closes[to] = true;
                    found.push(to);
                }
                _ => {}
            }
        }
    }
    found
}

/// Clears [`Keywords::implied`] where a schema under `properties` or `items` is not implied.
/// A node's children are compiled after it and get higher ids, so one pass from the last node
/// settles each before its parent; a child with a lower id (a schema reached earlier another
/// way) is not settled yet and counts as not implied, which only costs the walk a look.
fn settle_implied(nodes: &mut [Node]) {
    for id in (0..nodes.len()).rev() {
        let Node::Keywords(k) = &nodes[id] else {
            continue;
        };
        if !k.implied {
            continue;
        }
        let settled = |child: NodeId| match &nodes[child] {
            Node::Always => true,
            Node::Keywords(c) => child > id && c.implied,
            Node::Never(..) | Node::Pending => false,
        };
        let implied =
            k.properties.iter().all(|(_, child)| settled(*child)) && k.items.is_none_or(settled);
        if let Node::Keywords(k) = &mut nodes[id] {
            k.implied = implied;
        }
    }
}

/// Sets each node's [`Keywords::rejects`].
fn settle_rejects(nodes: &mut [Node]) {
    let mut memo: Vec<Option<u8>> = vec![None; nodes.len()];
    let mut entered = vec![false; nodes.len()];
    for id in 0..nodes.len() {
        let accepts = accepts(nodes, id, &mut memo, &mut entered, 0);
        if let Node::Keywords(k) = &mut nodes[id] {
            k.rejects = ALL_KINDS & !accepts;
        }
    }
}

/// The kinds a value passing node `id` may be (more where unsure: a cycle of references, a
/// chain deeper than 64, `$dynamicRef`).
fn accepts(
    nodes: &[Node],
    id: NodeId,
    memo: &mut [Option<u8>],
    entered: &mut [bool],
    depth: usize,
) -> u8 {
    if let Some(known) = memo[id] {
        return known;
    }
    if entered[id] || depth > 64 {
        return ALL_KINDS;
    }
    entered[id] = true;
    let kinds = match &nodes[id] {
        Node::Always | Node::Pending => ALL_KINDS,
        Node::Never(..) => 0,
        Node::Keywords(k) => {
            let mut kinds = k.types.map_or(ALL_KINDS, Types::kind_mask);
            if let Some(c) = &k.constant {
                kinds &= kind_bit(c);
            }
            if let Some(list) = &k.enumeration {
                kinds &= list.iter().fold(0, |bits, v| bits | kind_bit(v));
            }
            for sub in k.reference.iter().chain(&k.all_of) {
                kinds &= accepts(nodes, *sub, memo, entered, depth + 1);
            }
            kinds
        }
    };
    entered[id] = false;
    memo[id] = Some(kinds);
    kinds
}

/// Sets each node's [`Keywords::discriminants`].
fn settle_discriminants(nodes: &mut [Node]) {
    let names_values = |nodes: &[Node], mut child: NodeId| {
        // A `$ref` alone is followed a few steps, as far as a cycle could not go.
        for _ in 0..4 {
            match &nodes[child] {
                Node::Keywords(c) if c.constant.is_some() || c.enumeration.is_some() => {
                    return true;
                }
                Node::Keywords(c) if c.only_reference => match c.reference {
                    Some(target) => child = target,
                    None => return false,
                },
                _ => return false,
            }
        }
        false
    };
    for id in 0..nodes.len() {
        let Node::Keywords(k) = &nodes[id] else {
            continue;
        };
        if k.properties.len() < 2 {
            continue;
        }
        let found: Box<[usize]> = k
            .properties
            .iter()
            .enumerate()
            .filter(|(_, (_, child))| names_values(nodes, *child))
            .map(|(i, _)| i)
            .collect();
        if let Node::Keywords(k) = &mut nodes[id] {
            k.discriminants = found;
        }
    }
}

/// The value at JSON pointer `pointer` in `value`, as [`Value::pointer`] finds it, without
/// allocating for tokens that hold no escape (the compiler looks up every subschema by its
/// pointer).
pub(crate) fn lookup<'v>(value: &'v Value, pointer: &str) -> Option<&'v Value> {
    if pointer.is_empty() {
        return Some(value);
    }
    let mut here = value;
    for token in pointer.strip_prefix('/')?.split('/') {
        let token: std::borrow::Cow<'_, str> = if token.contains('~') {
            token.replace("~1", "/").replace("~0", "~").into()
        } else {
            token.into()
        };
        here = match here {
            Value::Object(map) => map.get(token.as_ref())?,
            Value::Array(list) => {
                let leading_zero = token.starts_with('0') && token.len() != 1;
                if token.starts_with('+') || leading_zero {
                    return None;
                }
                list.get(token.parse::<usize>().ok()?)?
            }
            _ => return None,
        };
    }
    Some(here)
}

fn strip_fragment(url: &Url) -> Url {
    let mut url = url.clone();
    url.set_fragment(None);
    url
}

/// The URI text that keys a resource: without an empty fragment.
fn key(url: &Url) -> String {
    strip_fragment(url).to_string()
}

impl Compiler {
    pub(crate) fn new(
        remotes: HashMap<String, Value>,
        directories: Vec<(String, PathBuf)>,
    ) -> Self {
        Compiler {
            docs: Vec::new(),
            index: foldhash::HashMap::default(),
            scanned: Vec::new(),
            outside: Scanned::new(default_base(), Draft::Draft2020, None),
            validates: foldhash::HashMap::default(),
            dynamic_anchors: foldhash::HashMap::default(),
            remotes,
            directories,
            files: Vec::new(),
            loaded: std::collections::HashSet::new(),
            nodes: Vec::new(),
            memo: foldhash::HashMap::default(),
            pending: Vec::new(),
            resources: Vec::new(),
            resource_of: foldhash::HashMap::default(),
            problems: Vec::new(),
            tracks_evaluation: false,
        }
    }

    /// Compiles `schema`, whose base URI is `base` unless it declares its own `$id`.
    pub(crate) fn compile(mut self, schema: Value, base: &str) -> Compiled {
        let base = match Url::parse(base) {
            Ok(base) => base,
            Err(e) => {
                self.problem(
                    ProblemKind::Identifier,
                    0,
                    String::new(),
                    format!("the base URI `{base}` does not parse ({e}); `{DEFAULT_BASE}` is used"),
                );
                default_base()
            }
        };
        let doc = self.add_document(schema, None, None, &base, (Draft::Draft2020, None), false);
        let root = self.node(Location {
            doc,
            pointer: String::new(),
        });
        while let Some((id, at)) = self.pending.pop() {
            let node = self.build(&at);
            self.nodes[id] = node;
        }
        for id in loops(&self.nodes) {
            if let Node::Keywords(k) = &self.nodes[id] {
                let (doc, pointer) = (k.doc, k.at.clone());
                self.problem(
                    ProblemKind::Loop,
                    doc,
                    pointer,
                    "refers back to itself without descending into the value (through \
                              `$ref`, `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else` or \
                              `dependentSchemas`): checking a value that comes back here would \
                              not end, so the check stops 4,096 schemas deep and fails with a \
                              `depth` breach; break the loop, or put it under `properties` or \
                              `items`"
                        .into(),
                );
            }
        }
        settle_implied(&mut self.nodes);
        settle_discriminants(&mut self.nodes);
        settle_rejects(&mut self.nodes);
        let mut locations = vec![(0, String::new()); self.nodes.len()];
        for (at, id) in self.memo {
            if let Some(slot) = locations.get_mut(id) {
                *slot = (at.doc, at.pointer);
            }
        }
        Compiled {
            nodes: self.nodes,
            locations,
            resources: self.resources,
            doc_uris: self.docs.iter().map(|d| d.uri.clone()).collect(),
            supplied: self.docs.iter().map(|d| d.supplied).collect(),
            texts: (self.docs.iter())
                .map(|d| Some((d.text.clone()?, d.file.clone()?)))
                .collect(),
            docs: self
                .docs
                .into_iter()
                .map(|d| Arc::unwrap_or_clone(d.value))
                .collect(),
            root,
            files: self.files,
            tracks_evaluation: self.tracks_evaluation,
            problems: self.problems,
        }
    }

    fn add_document(
        &mut self,
        value: Value,
        text: Option<Arc<str>>,
        file: Option<PathBuf>,
        base: &Url,
        (draft, meta): (Draft, Option<Arc<str>>),
        supplied: bool,
    ) -> usize {
        let doc = self.docs.len();
        let value = Arc::new(value);
        self.docs.push(Document {
            uri: key(base),
            value: Arc::clone(&value),
            supplied,
            text,
            file,
        });
        self.scanned.push(foldhash::HashMap::default());
        let context = Scanned::new(base.clone(), draft, meta);
        self.scan(&value, doc, String::new(), &context, true);
        doc
    }

    /// Indexes the identifiers of a schema object and of every schema inside it; `outer` is
    /// what the schema around it says (its base URI, draft and metaschema). The schemas inside
    /// are kept on a list of their own rather than on the call stack, which a schema nested a
    /// few hundred levels deep would overflow; they are visited in the order they are written.
    fn scan(
        &mut self,
        value: &Value,
        doc: usize,
        pointer: String,
        outer: &Scanned,
        document_root: bool,
    ) {
        let mut stack = vec![(value, pointer, outer.clone(), document_root)];
        while let Some((value, pointer, outer, document_root)) = stack.pop() {
            let Value::Object(map) = value else {
                continue;
            };
            let here = self.scan_object(map, doc, &pointer, &outer, document_root);
            let from = stack.len();
            for (keyword, child) in map {
                let Some(holds) = holds(keyword) else {
                    continue;
                };
                let at = pointer_to(&pointer, keyword);
                match (holds, child) {
                    (Holds::Named, Value::Object(children)) => {
                        for (name, schema) in children {
                            stack.push((schema, pointer_to(&at, name), here.clone(), false));
                        }
                    }
                    (Holds::Listed, Value::Array(children)) => {
                        for (i, schema) in children.iter().enumerate() {
                            stack.push((schema, format!("{at}/{i}"), here.clone(), false));
                        }
                    }
                    (Holds::Listed | Holds::One, other) => {
                        stack.push((other, at, here.clone(), false));
                    }
                    _ => {}
                }
            }
            // Popped last first: reversed, the first child written is visited next.
            stack[from..].reverse();
        }
    }

    /// Indexes the identifiers of one schema object at `pointer` of `doc`; what it says of
    /// the schemas inside it.
    fn scan_object(
        &mut self,
        map: &Map<String, Value>,
        doc: usize,
        pointer: &str,
        outer: &Scanned,
        document_root: bool,
    ) -> Scanned {
        let draft = map
            .get("$schema")
            .and_then(Value::as_str)
            .and_then(Draft::from_meta)
            .unwrap_or(outer.draft);
        let meta = match map.get("$schema").and_then(Value::as_str) {
            Some(meta) => {
                (outer.base.join(meta).ok().map(|m| key(&m).into())).or(outer.meta.clone())
            }
            None => outer.meta.clone(),
        };
        let location = Location {
            doc,
            pointer: pointer.to_owned(),
        };
        // In draft 7 a `$ref` hides every keyword beside it, `$id` included.
        let hidden = draft == Draft::Draft7 && map.contains_key("$ref");
        let edition = if meta == outer.meta && draft == outer.draft {
            outer.edition
        } else {
            Edition::of(meta.as_deref(), draft)
        };
        let mut base: Option<Url> = None;
        let mut resource = document_root;
        let id_keyword = if edition == Edition::Draft4 {
            "id"
        } else {
            "$id"
        };
        if let Some(id) = map
            .get(id_keyword)
            .and_then(Value::as_str)
            .filter(|_| !hidden)
        {
            match outer.base.join(id) {
                Ok(joined) if draft == Draft::Draft7 && id.starts_with('#') => {
                    // Draft 7's `"$id": "#name"` (draft 4's `"id"`) is an anchor.
                    self.index.insert(joined.to_string(), location.clone());
                }
                Ok(joined) => {
                    base = Some(strip_fragment(&joined));
                    resource = true;
                }
                Err(e) => self.problem(
                    ProblemKind::Identifier,
                    doc,
                    format!("{pointer}/{id_keyword}"),
                    format!("`{id}` is not a URI reference ({e}); it is ignored"),
                ),
            }
        }
        let here = match base {
            Some(base) => Scanned {
                resource: key(&base).into(),
                base: Arc::new(base),
                draft,
                edition,
                meta,
            },
            None => Scanned {
                base: Arc::clone(&outer.base),
                resource: Arc::clone(&outer.resource),
                draft,
                edition,
                meta,
            },
        };
        if resource {
            self.index
                .entry(here.resource.to_string())
                .or_insert(location.clone());
        }
        // Draft 2019-09's `"$recursiveAnchor": true` is a dynamic anchor without a name; kept as
        // the name "", which no `$dynamicAnchor` can have.
        if map.get("$recursiveAnchor") == Some(&Value::Bool(true))
            && here.edition == Edition::Draft2019
        {
            self.dynamic_anchors
                .entry(here.resource.to_string())
                .or_default()
                .push((String::new(), location.clone()));
        }
        for (keyword, dynamic) in [("$anchor", false), ("$dynamicAnchor", true)] {
            if let Some(name) = map.get(keyword).and_then(Value::as_str) {
                let mut anchored = (*here.base).clone();
                anchored.set_fragment(Some(name));
                self.index.insert(anchored.to_string(), location.clone());
                if dynamic {
                    self.dynamic_anchors
                        .entry(here.resource.to_string())
                        .or_default()
                        .push((name.to_owned(), location.clone()));
                }
            }
        }
        if let Some(scanned) = self.scanned.get_mut(doc) {
            scanned.insert(location.pointer, here.clone());
        }
        here
    }

    /// The node of the schema at `at`, compiled later if it is new.
    fn node(&mut self, at: Location) -> NodeId {
        if let Some(id) = self.memo.get(&at) {
            return *id;
        }
        let id = self.nodes.len();
        self.nodes.push(Node::Pending);
        self.memo.insert(at.clone(), id);
        self.pending.push((id, at));
        id
    }

    /// What the index knows of `at`, or of the nearest schema object above it.
    fn scanned_at(&self, at: &Location) -> Scanned {
        let Some(scanned) = self.scanned.get(at.doc) else {
            return self.outside.clone();
        };
        let mut pointer = at.pointer.as_str();
        loop {
            if let Some(s) = scanned.get(pointer) {
                return s.clone();
            }
            match pointer.rfind('/') {
                Some(cut) => pointer = &pointer[..cut],
                None => return self.outside.clone(),
            }
        }
    }

    fn build(&mut self, at: &Location) -> Node {
        let doc = Arc::clone(&self.docs[at.doc].value);
        let Some(value) = lookup(&doc, &at.pointer) else {
            return Node::Always;
        };
        let map = match value {
            Value::Bool(true) => return Node::Always,
            Value::Bool(false) => return Node::Never(at.doc, at.pointer.clone()),
            Value::Object(map) => Present::new(map),
            _ => {
                self.problem(
                    ProblemKind::NotASchema,
                    at.doc,
                    at.pointer.clone(),
                    "a schema is an object or a boolean; this one is neither, and allows any \
                     value"
                        .into(),
                );
                return Node::Always;
            }
        };
        let scanned = self.scanned_at(at);
        let map = self.of_this_draft(map, &scanned, at);
        self.wrong_kinds(&map, at);
        let mut k = Keywords {
            doc: at.doc,
            at: at.pointer.clone(),
            items_keyword: "items",
            prefix_keyword: "prefixItems",
            dependent_required_keyword: "dependentRequired",
            ..Keywords::default()
        };
        k.resource = Some(self.resource(&scanned.resource));
        k.format = map.get("format").and_then(Value::as_str).map(Into::into);
        k.examples = map
            .get("examples")
            .and_then(Value::as_array)
            .filter(|list| !list.is_empty())
            .cloned();
        let base = Arc::clone(&scanned.base);
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            k.reference = self
                .resolve(&base, reference, at, "$ref")
                .map(|target| self.node(target));
            if scanned.draft == Draft::Draft7 {
                k.settle();
                return Node::Keywords(Box::new(k));
            }
        }
        if let Some(reference) = map.get("$dynamicRef").and_then(Value::as_str)
            && let Some(target) = self.resolve(&base, reference, at, "$dynamicRef")
        {
            {
                // Only a reference to a dynamic anchor looks into the dynamic scope.
                let declared = lookup(&self.docs[target.doc].value, &target.pointer)
                    .and_then(|v| v.get("$dynamicAnchor"))
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                let anchor =
                    dynamic_anchor_name(reference).filter(|name| declared.as_ref() == Some(name));
                let target = self.node(target);
                k.dynamic = Some(Dynamic { target, anchor });
            }
        }
        // 2019-09's `$recursiveRef`: where it leads says `"$recursiveAnchor": true`, the
        // outermost resource of the dynamic scope that says so is meant.
        if let Some(reference) = map.get("$recursiveRef").and_then(Value::as_str)
            && let Some(target) = self.resolve(&base, reference, at, "$recursiveRef")
        {
            let marked = lookup(&self.docs[target.doc].value, &target.pointer)
                .and_then(|v| v.get("$recursiveAnchor"))
                == Some(&Value::Bool(true));
            let target = self.node(target);
            k.dynamic = Some(Dynamic {
                target,
                anchor: marked.then(String::new),
            });
        }
        let validation = match &scanned.meta {
            Some(meta) => self.meta_validates(meta),
            None => true,
        };
        if validation {
            self.read_assertions(&map, &mut k);
        }
        // The subschema at `at` followed by `segments`.
        let child = |this: &mut Self, segments: &[&str]| {
            let mut pointer = at.pointer.clone();
            for segment in segments {
                push_pointer_segment(&mut pointer, segment);
            }
            this.node(Location {
                doc: at.doc,
                pointer,
            })
        };
        for (keyword, list) in [("allOf", 0), ("anyOf", 1), ("oneOf", 2)] {
            if let Some(Value::Array(items)) = map.get(keyword) {
                let ids = (0..items.len())
                    .map(|i| child(self, &[keyword, &i.to_string()]))
                    .collect();
                match list {
                    0 => k.all_of = ids,
                    1 => k.any_of = ids,
                    _ => k.one_of = ids,
                }
            }
        }
        for keyword in [
            "not",
            "if",
            "then",
            "else",
            "contains",
            "additionalProperties",
            "propertyNames",
            "unevaluatedItems",
            "unevaluatedProperties",
        ] {
            if map.contains_key(keyword) {
                let id = Some(child(self, &[keyword]));
                match keyword {
                    "not" => k.not = id,
                    "if" => k.if_ = id,
                    "then" => k.then = id,
                    "else" => k.else_ = id,
                    "contains" => k.contains = id,
                    "additionalProperties" => k.additional_properties = id,
                    "propertyNames" => k.property_names = id,
                    "unevaluatedItems" => k.unevaluated_items = id,
                    _ => k.unevaluated_properties = id,
                }
            }
        }
        if k.unevaluated_items.is_some() || k.unevaluated_properties.is_some() {
            self.tracks_evaluation = true;
        }
        // Arrays: 2020-12 spells a tuple `prefixItems` + `items`, draft 7 and 2019-09 `items`
        // (a list) + `additionalItems`.
        match (scanned.draft, map.get("items")) {
            (_, Some(Value::Array(list))) if scanned.edition < Edition::Draft2020 => {
                k.prefix_items = (0..list.len())
                    .map(|i| child(self, &["items", &i.to_string()]))
                    .collect();
                k.prefix_keyword = "items";
                if map.contains_key("additionalItems") {
                    k.items = Some(child(self, &["additionalItems"]));
                    k.items_keyword = "additionalItems";
                }
            }
            (_, Some(Value::Array(_))) => self.problem(
                ProblemKind::OtherDraft,
                at.doc,
                format!("{}/items", at.pointer),
                "`items` as a list is draft 7's tuple; in draft 2020-12 it is `prefixItems`: \
                 the list is ignored"
                    .into(),
            ),
            (_, Some(_)) => k.items = Some(child(self, &["items"])),
            (_, None) => {}
        }
        if scanned.draft == Draft::Draft2020
            && let Some(Value::Array(list)) = map.get("prefixItems")
        {
            k.prefix_items = (0..list.len())
                .map(|i| child(self, &["prefixItems", &i.to_string()]))
                .collect();
        }
        if let Some(Value::Object(props)) = map.get("properties") {
            for name in props.keys() {
                let id = child(self, &["properties", name]);
                k.properties.push((name.clone(), id));
            }
        }
        if let Some(Value::Object(props)) = map.get("patternProperties") {
            for name in props.keys() {
                let id = child(self, &["patternProperties", name]);
                let pointer = pointer_to(&pointer_to(&at.pointer, "patternProperties"), name);
                if let Some(pattern) = self.pattern(name, at.doc, &pointer) {
                    k.pattern_properties.push((pattern, id));
                }
            }
        }
        if let Some(Value::Object(deps)) = map.get("dependentSchemas") {
            for name in deps.keys() {
                let id = child(self, &["dependentSchemas", name]);
                k.dependent_schemas.push((name.clone(), id));
            }
        }
        if scanned.draft == Draft::Draft7
            && let Some(Value::Object(deps)) = map.get("dependencies")
        {
            k.dependent_required_keyword = "dependencies";
            for (name, dep) in deps {
                match dep {
                    Value::Array(names) => k.dependent_required.push((
                        name.clone(),
                        names
                            .iter()
                            .filter_map(|n| n.as_str().map(str::to_owned))
                            .collect(),
                    )),
                    _ => {
                        let id = child(self, &["dependencies", name]);
                        k.dependent_schemas.push((name.clone(), id));
                    }
                }
            }
        }
        k.settle();
        Node::Keywords(Box::new(k))
    }

    /// The value keywords: types, listed values, bounds, lengths, counts, required names.
    fn read_assertions(&mut self, map: &Present<'_>, k: &mut Keywords) {
        let number = |key: &str| map.get(key).and_then(Value::as_f64);
        let count = |key: &str| {
            map.get(key).and_then(|v| {
                v.as_u64().or_else(|| {
                    v.as_f64()
                        .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                        .map(|f| f as u64)
                })
            })
        };
        let names: Option<Vec<&str>> = match map.get("type") {
            Some(Value::String(name)) => Some(vec![name.as_str()]),
            Some(Value::Array(names)) => Some(names.iter().filter_map(Value::as_str).collect()),
            _ => None,
        };
        k.types = names.as_deref().map(Types::of);
        for name in names.iter().flatten() {
            if !crate::instance::TYPE_NAMES.contains(name) {
                self.problem(
                    ProblemKind::UnknownType,
                    k.doc,
                    format!("{}/type", k.at),
                    format!(
                        "`{name}` is not a JSON Schema type (one of {}); no value has it",
                        crate::instance::TYPE_NAMES.join(", ")
                    ),
                );
            }
        }
        k.enumeration = map.get("enum").and_then(Value::as_array).cloned();
        k.constant = map.get("const").cloned();
        k.multiple_of = number("multipleOf").filter(|m| *m > 0.0);
        k.maximum = number("maximum");
        k.minimum = number("minimum");
        k.exclusive_maximum = number("exclusiveMaximum");
        k.exclusive_minimum = number("exclusiveMinimum");
        // Draft 4's boolean exclusive bounds turn the inclusive ones exclusive.
        if map.get("exclusiveMaximum") == Some(&Value::Bool(true)) {
            k.exclusive_maximum = k.maximum.take();
        }
        if map.get("exclusiveMinimum") == Some(&Value::Bool(true)) {
            k.exclusive_minimum = k.minimum.take();
        }
        k.max_length = count("maxLength");
        k.min_length = count("minLength");
        k.max_items = count("maxItems");
        k.min_items = count("minItems");
        k.unique_items = map.get("uniqueItems") == Some(&Value::Bool(true));
        k.max_contains = count("maxContains");
        k.min_contains = count("minContains");
        k.max_properties = count("maxProperties");
        k.min_properties = count("minProperties");
        self.unsatisfiable(map, k);
        if let Some(Value::Array(names)) = map.get("required") {
            k.required = names
                .iter()
                .filter_map(|n| n.as_str().map(str::to_owned))
                .collect();
        }
        if let Some(Value::Object(deps)) = map.get("dependentRequired") {
            for (name, names) in deps {
                if let Value::Array(names) = names {
                    k.dependent_required.push((
                        name.clone(),
                        names
                            .iter()
                            .filter_map(|n| n.as_str().map(str::to_owned))
                            .collect(),
                    ));
                }
            }
        }
        if let Some(source) = map.get("pattern").and_then(Value::as_str) {
            let pointer = format!("{}/pattern", k.at);
            k.pattern = self.pattern(source, k.doc, &pointer);
        }
    }

    /// A problem for each pair of bounds of `k` that no value of their kind keeps, at the
    /// pointer of the lower one.
    fn unsatisfiable(&mut self, map: &Present<'_>, k: &Keywords) {
        let shown = |key: &str| map.get(key).map_or_else(String::new, Value::to_string);
        let mut found = Vec::new();
        // Numbers: a lower bound above an upper one, or meeting it where either is exclusive.
        for (low, lo, lo_exclusive) in [
            ("minimum", k.minimum, false),
            ("exclusiveMinimum", k.exclusive_minimum, true),
        ] {
            for (high, hi, hi_exclusive) in [
                ("maximum", k.maximum, false),
                ("exclusiveMaximum", k.exclusive_maximum, true),
            ] {
                if let (Some(lo), Some(hi)) = (lo, hi)
                    && (lo > hi || (lo == hi && (lo_exclusive || hi_exclusive)))
                {
                    found.push((low, high, "number"));
                }
            }
        }
        for (low, lo, high, hi, kind) in [
            (
                "minLength",
                k.min_length,
                "maxLength",
                k.max_length,
                "string",
            ),
            ("minItems", k.min_items, "maxItems", k.max_items, "array"),
            (
                "minContains",
                k.min_contains,
                "maxContains",
                k.max_contains,
                "array",
            ),
            (
                "minProperties",
                k.min_properties,
                "maxProperties",
                k.max_properties,
                "object",
            ),
        ] {
            if let (Some(lo), Some(hi)) = (lo, hi)
                && lo > hi
            {
                found.push((low, high, kind));
            }
        }
        for (low, high, kind) in found {
            // Draft 4's boolean exclusive bounds are read as the inclusive keyword's value.
            let value = |key: &str| match (map.get(key), key) {
                (Some(Value::Bool(_)), "exclusiveMinimum") => shown("minimum"),
                (Some(Value::Bool(_)), _) => shown("maximum"),
                _ => shown(key),
            };
            let message = format!(
                "`{low}: {}` with `{high}: {}`: no {kind} keeps both, so every {kind} here breaks \
                 one; they are checked as written",
                value(low),
                value(high)
            );
            self.problem(
                ProblemKind::Unsatisfiable,
                k.doc,
                format!("{}/{low}", k.at),
                message,
            );
        }
    }

    fn pattern(&mut self, source: &str, doc: usize, pointer: &str) -> Option<Pattern> {
        Pattern::parse(source)
            .map_err(|why| {
                self.problem(
                    ProblemKind::Pattern,
                    doc,
                    pointer.to_owned(),
                    format!(
                        "the pattern `{source}` does not compile ({why}); it is not checked{}",
                        if cfg!(feature = "unicode") || !why.contains("Unicode") {
                            ""
                        } else {
                            " (they are checked with the feature `unicode-patterns` of \
                             agents-runtime)"
                        }
                    ),
                )
            })
            .ok()
    }

    /// Records a problem at `pointer` of the document `doc`, naming that document when it is
    /// not the schema compiled.
    /// `map` without the keywords of the other draft than `draft`, each reported: checking one
    /// would judge values by a rule the schema's draft does not have, and leaving it out
    /// unsaid would drop what the user meant.
    fn of_this_draft<'m>(
        &mut self,
        mut map: Present<'m>,
        scanned: &Scanned,
        at: &Location,
    ) -> Present<'m> {
        let this = scanned.edition;
        // Most schema objects hold none of them: one AND says so.
        if map.held & foreign_bits(this) == 0 {
            return map;
        }
        for (keyword, since, until, instead) in DRAFT_KEYWORDS {
            if this.has(since, until) || !map.contains_key(keyword) {
                continue;
            }
            map.forget(keyword);
            let drafts = match until {
                None => format!("{} and later", since.name()),
                Some(until) if since == Edition::Draft4 => {
                    format!("drafts before {}", until.name())
                }
                // The one keyword of the table that came and went (`$recursiveRef`) lasted one
                // draft.
                Some(_) => since.name().to_owned(),
            };
            self.problem(
                ProblemKind::OtherDraft,
                at.doc,
                pointer_to(&at.pointer, keyword),
                format!(
                    "`{keyword}` is a keyword of {drafts}; this schema is {} (its `$schema`), \
                     which spells it {instead}: it is ignored",
                    this.name()
                ),
            );
        }
        map
    }

    /// Reports each keyword of `map` (a schema object at `at`, without the keywords its draft
    /// lacks) whose value is of a kind it does not take, by [`takes`].
    fn wrong_kinds(&mut self, map: &Present<'_>, at: &Location) {
        for (keyword, value) in map.map {
            let of_this_draft = read_bit(keyword).is_none() || map.contains_key(keyword);
            if let (true, Some((false, what))) = (of_this_draft, takes(keyword, value)) {
                self.problem(
                    ProblemKind::WrongKind,
                    at.doc,
                    pointer_to(&at.pointer, keyword),
                    format!(
                        "`{keyword}` takes {what}, and this is {}: it is not read; fix the \
                         schema to have it used",
                        agents_wire::json::kind(value)
                    ),
                );
            }
        }
    }

    fn problem(&mut self, kind: ProblemKind, doc: usize, pointer: String, message: String) {
        let (document, file) = match self.docs.get(doc).filter(|_| doc != 0) {
            Some(d) => (Some(d.uri.clone()), d.file.clone()),
            None => (None, None),
        };
        self.problems.push(Problem {
            kind,
            pointer,
            document,
            file,
            message,
        });
    }

    /// The resource whose base URI is `base` (its index in `resources`), with its dynamic
    /// anchors.
    /// The resource named `name` (a base URI without fragment), added on first use.
    fn resource(&mut self, name: &str) -> usize {
        if let Some(r) = self.resource_of.get(name) {
            return *r;
        }
        let r = self.resources.len();
        self.resources.push(Resource::default());
        self.resource_of.insert(name.to_owned(), r);
        let anchors = self.dynamic_anchors.get(name).cloned().unwrap_or_default();
        for (name, location) in anchors {
            let id = self.node(location);
            self.resources[r].dynamic_anchors.insert(name, id);
        }
        r
    }

    /// The node a reference points to, loading a supplied document or a metaschema when the
    /// reference leaves the schema; a dangling reference is a problem and allows any value.
    fn resolve(
        &mut self,
        base: &Url,
        reference: &str,
        from: &Location,
        keyword: &str,
    ) -> Option<Location> {
        let target = match base.join(reference) {
            Ok(target) => target,
            Err(e) => {
                self.problem(
                    ProblemKind::Reference,
                    from.doc,
                    format!("{}/{keyword}", from.pointer),
                    format!("`{reference}` is not a URI reference ({e}); it is not followed"),
                );
                return None;
            }
        };
        let resource = key(&target);
        if !self.index.contains_key(&resource) {
            self.load(&resource);
        }
        let fragment = target.fragment().unwrap_or("");
        let decoded = crate::path::percent_decoded(fragment);
        let location = if decoded.is_empty() || decoded.starts_with('/') {
            self.index.get(&resource).map(|root| Location {
                doc: root.doc,
                pointer: format!("{}{decoded}", root.pointer),
            })
        } else {
            self.index.get(target.as_str()).cloned()
        };
        match location {
            Some(at) if lookup(&self.docs[at.doc].value, &at.pointer).is_some() => Some(at),
            _ => {
                self.problem(
                    ProblemKind::Reference,
                    from.doc,
                    format!("{}/{keyword}", from.pointer),
                    format!(
                        "`{reference}` points to nothing (resolved as `{target}`); supply the \
                         document it names, or fix the reference: it is not followed"
                    ),
                );
                None
            }
        }
    }

    /// The document `uri` from a directory whose prefix it starts with, its text and its file.
    /// A file that is there but does not read as JSON is a problem, and so is each key it gives
    /// twice in one object (the value read keeps only the last).
    fn read_file(&mut self, uri: &str) -> Option<(Value, Arc<str>, PathBuf)> {
        let (prefix, dir) = self
            .directories
            .iter()
            .find(|(prefix, _)| uri.starts_with(prefix.as_str()))?;
        let rest = &uri[prefix.len()..];
        // A reference may not climb out of the directory it was given.
        if rest.split('/').any(|s| s == ".." || s.contains('\\')) {
            return None;
        }
        let path = dir.join(rest);
        let text = std::fs::read_to_string(&path).ok()?;
        self.files.push(path.clone());
        // A byte order mark an editor saved first is skipped, as in every JSON file read.
        let text = agents_wire::json::text_without_bom(&text);
        let problem = |kind, pointer, message| Problem {
            kind,
            pointer,
            document: Some(uri.to_owned()),
            file: Some(path.clone()),
            message,
        };
        match agents_wire::json::from_str(text) {
            Ok(value) => {
                for (pointer, message) in repeated_keys(text) {
                    self.problems
                        .push(problem(ProblemKind::RepeatedKey, pointer, message));
                }
                Some((value, text.into(), path))
            }
            Err(e) => {
                let message =
                    format!("the file is not JSON ({e}); references to `{uri}` are not followed");
                self.problems
                    .push(problem(ProblemKind::Unreadable, String::new(), message));
                None
            }
        }
    }

    /// False when the metaschema `meta` lists its vocabularies and validation is not one of them.
    /// Whether the metaschema `resource` turns on the validation vocabulary; settled once per
    /// metaschema, as every subschema under it asks.
    fn meta_validates(&mut self, resource: &Arc<str>) -> bool {
        if let Some(known) = self.validates.get(resource) {
            return *known;
        }
        let validates = self.read_vocabularies(resource);
        self.validates.insert(Arc::clone(resource), validates);
        validates
    }

    fn read_vocabularies(&mut self, resource: &str) -> bool {
        // The bundled metaschemas of both drafts validate (2020-12's lists the validation
        // vocabulary, draft 7's has none to list); reading one only to find that out would be
        // the largest single step of compiling a small schema. A document the caller supplies
        // under the same URI is read.
        let supplied = self.remotes.contains_key(resource)
            || (self.directories.iter()).any(|(prefix, _)| resource.starts_with(prefix.as_str()));
        if !supplied && BUNDLED_VALIDATING.contains(&resource) {
            return true;
        }
        if !self.index.contains_key(resource) {
            self.load(resource);
        }
        let Some(at) = self.index.get(resource) else {
            return true;
        };
        validates(lookup(&self.docs[at.doc].value, &at.pointer))
    }

    /// Loads the document `uri` from the supplied ones, the directories or the metaschemas, if
    /// there is one.
    fn load(&mut self, uri: &str) {
        let trimmed = uri.trim_end_matches('#');
        // A metaschema names itself as its `$schema`: each document is read once.
        if !self.loaded.insert(trimmed.to_owned()) {
            return;
        }
        let mut supplied = true;
        let found = self
            .remotes
            .get(trimmed)
            .map(|value| (value.clone(), None, None))
            .or_else(|| {
                self.read_file(trimmed)
                    .map(|(v, text, file)| (v, Some(text), Some(file)))
            })
            .or_else(|| {
                supplied = false;
                METASCHEMAS
                    .iter()
                    .find(|(name, _)| *name == trimmed)
                    .and_then(|(_, text)| serde_json::from_str(text).ok())
                    .map(|value| (value, None, None))
            });
        if let Some((value, text, file)) = found
            && let Ok(base) = Url::parse(trimmed)
        {
            // A document that names no draft is read in the root's, as the schema that refers
            // to it is most likely of the same (its own `$schema` decides otherwise).
            let root = (self.scanned.first()).and_then(|s| s.get(""));
            let draft = root.map_or((Draft::Draft2020, None), |r| (r.draft, r.meta.clone()));
            let doc = self.add_document(value, text, file, &base, draft, supplied);
            // A document that declares another `$id` is still found where it was fetched.
            self.index.entry(key(&base)).or_insert(Location {
                doc,
                pointer: String::new(),
            });
        }
    }
}

/// The keys the JSON `text` gives twice in one object, each as the pointer of its repeat and
/// what to do ([`ProblemKind::RepeatedKey`]'s message).
pub(crate) fn repeated_keys(text: &str) -> Vec<(String, String)> {
    use agents_wire::repeated::Step;
    (agents_wire::repeated::keys(text).into_iter())
        .map(|twice| {
            let mut pointer = String::new();
            for step in &twice.object {
                match step {
                    Step::Key(key) => push_pointer_segment(&mut pointer, key),
                    Step::Item(i) => push_pointer_segment(&mut pointer, &i.to_string()),
                }
            }
            push_pointer_segment(&mut pointer, &twice.key);
            let message = format!(
                "`{}` is given twice in this object, and a JSON reader keeps only the last; \
                 remove or rename one",
                twice.key
            );
            (pointer, message)
        })
        .collect()
}

fn default_base() -> Url {
    // A URN with a scheme always parses: this `expect` cannot fire on any input.
    #[allow(clippy::expect_used)]
    Url::parse(DEFAULT_BASE).expect("DEFAULT_BASE is an absolute URI")
}

/// The name in `#name` when a reference's fragment is an anchor name, not a pointer.
fn dynamic_anchor_name(reference: &str) -> Option<String> {
    let (_, fragment) = reference.split_once('#')?;
    (!fragment.is_empty() && !fragment.starts_with('/')).then(|| fragment.to_owned())
}

/// The keyword that gives a schema its URI under the metaschema `meta` (a URI): draft 4 spells
/// `$id` as `id`, which later drafts do not read.
pub(crate) fn id_keyword(meta: Option<&str>) -> &'static str {
    if meta.is_some_and(|m| m.contains("draft-04")) {
        "id"
    } else {
        "$id"
    }
}

/// The draft a root document declares with `$schema`; 2020-12 when it names none or one of
/// neither.
pub(crate) fn root_draft(root: &Value) -> Draft {
    root.get("$schema")
        .and_then(Value::as_str)
        .and_then(Draft::from_meta)
        .unwrap_or(Draft::Draft2020)
}

/// Whether a schema declaring the metaschema `meta` has `keyword` (see [`crate::draft_has`]).
pub(crate) fn draft_has(meta: Option<&str>, keyword: &str) -> bool {
    let draft = meta.and_then(Draft::from_meta).unwrap_or(Draft::Draft2020);
    let edition = Edition::of(meta, draft);
    (DRAFT_KEYWORDS.iter())
        .find(|(k, ..)| *k == keyword)
        .is_none_or(|(_, since, until, _)| edition.has(*since, *until))
}

/// Where a root document embeds others: `definitions` in a draft 7 root, else `$defs`.
pub(crate) fn defs_keyword(root: &Value) -> &'static str {
    match root_draft(root) {
        Draft::Draft7 => "definitions",
        Draft::Draft2020 => "$defs",
    }
}

/// A draft of JSON Schema, by the URI of its metaschema: the keywords a schema has depend on it
/// more finely than [`Draft`] tells (which keeps only how the shared keywords are spelt).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Edition {
    Draft4,
    Draft6,
    Draft7,
    Draft2019,
    Draft2020,
}

impl Edition {
    fn of(meta: Option<&str>, draft: Draft) -> Edition {
        let meta = meta.unwrap_or_default();
        if meta.contains("draft-04") {
            Edition::Draft4
        } else if meta.contains("draft-06") {
            Edition::Draft6
        } else if meta.contains("2019-09") {
            Edition::Draft2019
        } else {
            match draft {
                Draft::Draft7 => Edition::Draft7,
                Draft::Draft2020 => Edition::Draft2020,
            }
        }
    }

    /// Whether a schema of this draft has `keyword` (one of [`DRAFT_KEYWORDS`]).
    fn has(self, since: Edition, until: Option<Edition>) -> bool {
        since <= self && until.is_none_or(|until| self < until)
    }

    fn name(self) -> &'static str {
        match self {
            Edition::Draft4 => "draft 4",
            Edition::Draft6 => "draft 6",
            Edition::Draft7 => "draft 7",
            Edition::Draft2019 => "draft 2019-09",
            Edition::Draft2020 => "draft 2020-12",
        }
    }
}

/// The keywords `build` reads that not every draft has: the draft that brought each in, the
/// draft that dropped it, and what the drafts without it write instead. In a schema of a draft
/// without it a keyword means nothing, as every validator of that draft reads it.
const DRAFT_KEYWORDS: [(&str, Edition, Option<Edition>, &str); 17] = [
    ("const", Edition::Draft6, None, "an `enum` of one value"),
    (
        "contains",
        Edition::Draft6,
        None,
        "nothing: only `items`, which every item passes",
    ),
    (
        "propertyNames",
        Edition::Draft6,
        None,
        "nothing: only `patternProperties` and `additionalProperties`",
    ),
    ("if", Edition::Draft7, None, "`anyOf` of two `allOf`s"),
    ("then", Edition::Draft7, None, "`anyOf` of two `allOf`s"),
    ("else", Edition::Draft7, None, "`anyOf` of two `allOf`s"),
    (
        "dependentRequired",
        Edition::Draft2019,
        None,
        "`dependencies` with a list of names",
    ),
    (
        "dependentSchemas",
        Edition::Draft2019,
        None,
        "`dependencies` with a schema",
    ),
    (
        "unevaluatedItems",
        Edition::Draft2019,
        None,
        "`additionalItems`, where `items` is a list",
    ),
    (
        "unevaluatedProperties",
        Edition::Draft2019,
        None,
        "`additionalProperties`",
    ),
    (
        "minContains",
        Edition::Draft2019,
        None,
        "nothing: only `contains`",
    ),
    (
        "maxContains",
        Edition::Draft2019,
        None,
        "nothing: only `contains`",
    ),
    ("prefixItems", Edition::Draft2020, None, "`items` as a list"),
    ("$dynamicRef", Edition::Draft2020, None, "`$ref`"),
    (
        "$recursiveRef",
        Edition::Draft2019,
        Some(Edition::Draft2020),
        "`$dynamicRef`, with `$dynamicAnchor` for `$recursiveAnchor`",
    ),
    (
        "dependencies",
        Edition::Draft4,
        Some(Edition::Draft2019),
        "`dependentRequired` (lists of names) and `dependentSchemas`",
    ),
    (
        "additionalItems",
        Edition::Draft4,
        Some(Edition::Draft2020),
        "`items` after `prefixItems`",
    ),
];

/// The read bits ([`Present`]) of the keywords of [`DRAFT_KEYWORDS`] that `edition` lacks.
fn foreign_bits(edition: Edition) -> u64 {
    static BITS: std::sync::OnceLock<[u64; 5]> = std::sync::OnceLock::new();
    let all = BITS.get_or_init(|| {
        let editions = [
            Edition::Draft4,
            Edition::Draft6,
            Edition::Draft7,
            Edition::Draft2019,
            Edition::Draft2020,
        ];
        editions.map(|e| {
            (DRAFT_KEYWORDS.iter())
                .filter(|(_, since, until, _)| !e.has(*since, *until))
                .filter_map(|(keyword, ..)| read_bit(keyword))
                .fold(0, |bits, bit| bits | 1 << bit)
        })
    });
    all[edition as usize]
}

/// The root document with the supplied documents embedded under `$defs` (`definitions` in a
/// draft 7 root), each as a resource whose `$id` is the URI it was fetched by. A document that
/// declares another `$id` is embedded as it is, beside a resource of the fetched URI that
/// refers to it.
pub(crate) fn bundle(compiled: &Compiled) -> (Cow<'_, Value>, Placed) {
    let extra: Vec<usize> = (1..compiled.docs.len())
        .filter(|i| compiled.supplied[*i])
        .collect();
    let mut placed = Vec::new();
    if extra.is_empty() {
        return (Cow::Borrowed(&compiled.docs[0]), placed);
    }
    let mut root = compiled.docs[0].clone();
    if let Value::Bool(allowed) = root {
        root = if allowed {
            Value::Object(Map::new())
        } else {
            serde_json::json!({"not": {}})
        };
    }
    let keyword = defs_keyword(&compiled.docs[0]);
    let Value::Object(map) = &mut root else {
        return (Cow::Owned(root), placed);
    };
    let defs = map
        .entry(keyword)
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(defs) = defs else {
        return (Cow::Owned(root), placed);
    };
    let mut place = |name: &str, doc: usize| {
        placed.push((crate::path::pointer_to(&format!("/{keyword}"), name), doc));
    };
    let root_meta = compiled.docs[0].get("$schema").and_then(Value::as_str);
    for i in extra {
        let uri = &compiled.doc_uris[i];
        let mut doc = compiled.docs[i].clone();
        // A document without a `$schema` of its own is read in the root's draft.
        let meta = doc.get("$schema").and_then(Value::as_str).or(root_meta);
        let id_keyword = id_keyword(meta);
        let declared = doc.get(id_keyword).and_then(Value::as_str).and_then(|id| {
            Url::parse(uri)
                .ok()
                .and_then(|base| base.join(id).ok())
                .map(|u| key(&u))
        });
        match (&mut doc, declared) {
            (Value::Object(d), Some(id)) if id != *uri => {
                d.insert(id_keyword.into(), Value::String(id.clone()));
                let name = format!("{uri} (as {id})");
                place(&name, i);
                defs.insert(name, doc);
                defs.insert(
                    uri.clone(),
                    serde_json::json!({id_keyword: uri, "$ref": id}),
                );
            }
            (Value::Object(d), _) => {
                d.insert(id_keyword.into(), Value::String(uri.clone()));
                place(uri, i);
                defs.insert(uri.clone(), doc);
            }
            (_, _) => {
                place(uri, i);
                defs.insert(uri.clone(), doc);
            }
        }
    }
    (Cow::Owned(root), placed)
}

/// Where a bundled or localized schema embeds other documents: a JSON pointer in it and the
/// document (an index of [`Compiled::docs`]).
pub(crate) type Placed = Vec<(String, usize)>;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{BUNDLED_VALIDATING, METASCHEMAS, Value, lookup, validates};

    /// `foreign_bits` finds a keyword by its read bit: one without would never be reported.
    #[test]
    fn every_keyword_of_some_drafts_is_one_build_reads() {
        for (keyword, ..) in super::DRAFT_KEYWORDS {
            assert!(super::read_bit(keyword).is_some(), "{keyword}");
        }
    }

    #[test]
    fn the_bundled_metaschemas_taken_to_validate_do() {
        for uri in BUNDLED_VALIDATING {
            let text = METASCHEMAS.iter().find(|(u, _)| *u == uri).map(|(_, t)| *t);
            let meta: Value = serde_json::from_str(text.unwrap_or("null")).unwrap();
            assert!(meta.is_object(), "{uri} is not bundled");
            assert!(validates(Some(&meta)), "{uri}");
        }
    }

    #[test]
    fn lookup_finds_what_serde_json_finds() {
        let doc = json!({
            "a/b": {"m~n": [10, {"x": 1}]},
            "$defs": {"0": true, "": {"": 2}},
            "list": [0, 1, 2],
        });
        for pointer in [
            "",
            "/a~1b",
            "/a~1b/m~0n",
            "/a~1b/m~0n/1/x",
            "/a~1b/m~0n/01",
            "/a~1b/m~0n/+1",
            "/a~1b/m~0n/9",
            "/$defs/0",
            "/$defs/",
            "/$defs//",
            "/list/2",
            "/list/-1",
            "a",
            "/missing",
            "/list/2/x",
            "/a~01b",
        ] {
            assert_eq!(lookup(&doc, pointer), doc.pointer(pointer), "{pointer:?}");
        }
    }
}
