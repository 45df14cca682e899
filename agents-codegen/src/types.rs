//! Where a schema type becomes a Rust type.
//!
//! Output fields (every one is wrapped in `Option`: absent or `null` is `None`):
//!
//! | schema                                       | Rust type                          |
//! |----------------------------------------------|------------------------------------|
//! | `string` (any `format`)                      | `String`                           |
//! | `number`                                     | `f64`                              |
//! | `integer`                                    | `i64`                              |
//! | `boolean`                                    | `bool`                             |
//! | `array` with `items`                         | `Vec<item type>`                   |
//! | `array` of objects with properties           | `Vec<generated struct>`            |
//! | `array` without `items`                      | `Vec<serde_json::Value>`           |
//! | `object` with non-empty `properties`         | a generated struct                 |
//! | `object` with only `additionalProperties: S` | `BTreeMap<String, S's type>`       |
//! | `properties` beside `patternProperties` or a typed `additionalProperties` / `unevaluatedProperties` | the struct, with a `BTreeMap<String, T>` field per pattern (`pattern_properties`, …) and one for every other key (`additional_properties`) after the declared fields |
//! | `object` without properties                  | `serde_json::Map<String, Value>`   |
//! | no `type`, but `properties` / `items`        | as `object` / `array`              |
//! | `["T", "null"]`, or `anyOf`/`oneOf` of `T` and `null` | as `T`                    |
//! | `enum` of strings (`null` aside)             | a generated enum with `Unknown(String)` |
//! | `const`                                      | the type of its value              |
//! | `allOf` of objects                           | one struct with every branch's properties |
//! | `$ref` to a definition                       | the definition's type, generated once and named after it |
//! | a `$ref` back to a type being defined        | `Box<that type>` (recursion)       |
//! | a `$ref` by `$id` URI or `$anchor`, into another document, a `$dynamicRef` | the type of what it resolves to (another document is named by its file: `price.json` → `ShopPrice`; a `$dynamicRef` means its outermost dynamic anchor) |
//! | missing, `null`, unknown or a union of types | `serde_json::Value` (noted in docs) |
//! | `anyOf`/`oneOf` of schemas of different kinds (a string or a list, …) | a generated enum with a variant per kind (`String(String)`, `List(Vec<…>)`, `Object(…)`, …), branches of one kind merged ([`union_plan`]) |
//! | a union with a branch of no single kind, tuples (`prefixItems`), `false` | `serde_json::Value` (noted in docs) |
//! | an object nested more than 32 structs deep  | `serde_json::Value` (a warning, noted in docs) |
//!
//! The agent's record is always a struct. When the document's root declares no properties of
//! its own, the record is generated from what the root leads to: its `$ref`, its merged `allOf`,
//! its one non-null `anyOf`/`oneOf` branch, or for a union of object schemas every branch's
//! properties together ([`union_object`]), each optional unless every branch requires it.
//!
//! Types are the ones a person would write: `Vec<Review>`, not `Vec<Box<Review>>`. A record
//! type is boxed only where recursion needs it: at the field that refers back to a type being
//! defined, also inside a `Vec` there, since the box is also where Arrow columns stop nesting
//! and write JSON text (none of the catalog's records recurses).
//!
//! `format` never changes the type: `date-time`, `date`, `uri`, `email` and `uuid` are
//! `String`, kept exactly as sent (a date that does not parse is still data), with the format
//! in the field's docs.
//!
//! A `number` is an `f64`: an integer-valued number such as `4` serializes back as `4.0`, the
//! same JSON number. An integer a double does not hold exactly (past 2^53) is not rounded into
//! it: the decoder keeps it in `unknown_fields` as sent, with a mismatch.
//!
//! Input parameters: `string` → `String`, `number` → `f64` (the pagination parameter → `u32`),
//! `integer` → `i64`, `boolean` → `bool`, anything else → `serde_json::Value` (noted in docs).

use agents_schema::FieldSchema;

/// The resolved type of an output field (before wrapping in `Option`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Ty {
    /// `String`.
    String,
    /// `f64`.
    Number,
    /// `i64`.
    Integer,
    /// `bool`.
    Boolean,
    /// `u32`: a page number (the pagination parameter).
    Page,
    /// `serde_json::Value`.
    Any,
    /// `serde_json::Map<String, Value>`.
    Map,
    /// `Vec<T>`.
    Array(Box<Ty>),
    /// `BTreeMap<String, T>`.
    MapOf(Box<Ty>),
    /// `Box<T>`: where a recursive type refers back to itself.
    Boxed(Box<Ty>),
    /// A generated struct, by index into the agent's struct list.
    Struct(usize),
    /// A generated string enum, by index into the agent's enum list.
    Enum(usize),
    /// A generated enum of kinds of value, by index into the agent's union list.
    Union(usize),
}

/// How a schema is to be represented, before nested types are created.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape<'a> {
    /// A scalar or raw JSON type.
    Leaf(Ty),
    /// An array; `None` when the items are untyped.
    Array(Option<&'a FieldSchema>),
    /// An object with properties: becomes a struct.
    Object(&'a FieldSchema),
    /// An object whose keys are free and whose values have this schema.
    MapOf(&'a FieldSchema),
    /// A list of strings: becomes an enum.
    Enum(Vec<&'a str>),
    /// A reference to another schema of the document.
    Ref(&'a str),
    /// The one schema of an `anyOf`/`oneOf` (keyword, index) that is not `null`.
    Branch(&'static str, usize, &'a FieldSchema),
    /// The branches of an `allOf` merged into one schema.
    Merged(Box<FieldSchema>),
    /// The non-null branches (index, schema) of an `anyOf`/`oneOf` (keyword) with several.
    Union(&'static str, Vec<(usize, &'a FieldSchema)>),
}

/// Classifies a schema; the second value is a note for the docs when the schema's type could
/// not be used as given. `doc` is the document references resolve in.
pub fn classify<'a>(schema: &'a FieldSchema, doc: &FieldSchema) -> (Shape<'a>, Option<String>) {
    if let Some(r) = &schema.reference {
        return (Shape::Ref(r), None);
    }
    if schema.is_never() {
        return (
            Shape::Leaf(Ty::Any),
            Some(
                "The schema allows no value here; whatever is sent is kept as raw JSON.".to_owned(),
            ),
        );
    }
    if let Some(all) = schema.all_of.as_ref().filter(|a| !a.is_empty()) {
        return match merge(schema, all, doc) {
            Some(merged) => (Shape::Merged(Box::new(merged)), None),
            None => (
                Shape::Leaf(Ty::Any),
                Some("The schema combines schemas of different kinds (`allOf`); the value is kept as raw JSON.".to_owned()),
            ),
        };
    }
    for (keyword, branches) in [("anyOf", &schema.any_of), ("oneOf", &schema.one_of)] {
        let Some(branches) = branches
            .as_ref()
            .filter(|b| !b.is_empty() && !constraints_only(b))
        else {
            continue;
        };
        let real: Vec<(usize, &FieldSchema)> = branches
            .iter()
            .enumerate()
            .filter(|(_, b)| !is_null(b))
            .collect();
        return match real.as_slice() {
            [] => (Shape::Leaf(Ty::Any), None),
            [(i, only)] => (Shape::Branch(keyword, *i, only), None),
            many => match strings(many.iter().map(|(_, b)| *b)) {
                Some(values) => (Shape::Enum(values), None),
                None => (Shape::Union(keyword, many.to_vec()), None),
            },
        };
    }
    if let Some(c) = &schema.const_value {
        return (Shape::Leaf(value_ty(c)), None);
    }
    if let Some(values) = &schema.enum_values {
        if let Some(list) = strings([schema]) {
            return (Shape::Enum(list), None);
        }
        let mut types = values.iter().filter(|v| !v.is_null()).map(value_ty);
        let first = types.next();
        if let Some(ty) = first.filter(|t| types.all(|u| u == *t)) {
            return (Shape::Leaf(ty), None);
        }
        return (
            Shape::Leaf(Ty::Any),
            Some(
                "The schema lists values of several kinds; the value is kept as raw JSON."
                    .to_owned(),
            ),
        );
    }
    let declared = schema.ty.as_ref();
    let name = declared.and_then(|t| t.single());
    let inferred = match (name, &schema.properties, &schema.items) {
        (Some(n), _, _) => Some(n),
        (None, Some(_), _) if declared.is_none() => Some("object"),
        (None, None, Some(_)) if declared.is_none() => Some("array"),
        (None, None, None)
            if declared.is_none()
                && (schema.additional_properties.is_some()
                    || schema.pattern_properties.is_some()) =>
        {
            Some("object")
        }
        (None, None, None) if declared.is_none() && schema.prefix_items.is_some() => Some("array"),
        _ => None,
    };
    match inferred {
        Some("string") => (Shape::Leaf(Ty::String), None),
        Some("number") => (Shape::Leaf(Ty::Number), None),
        Some("integer") => (Shape::Leaf(Ty::Integer), None),
        Some("boolean") => (Shape::Leaf(Ty::Boolean), None),
        Some("array") if schema.prefix_items.is_some() => (
            Shape::Leaf(Ty::Any),
            Some("The array is a tuple (`prefixItems`); it is kept as raw JSON.".to_owned()),
        ),
        Some("array") => (Shape::Array(schema.items.as_deref()), None),
        Some("object") => match &schema.properties {
            Some(props) if !props.is_empty() => (Shape::Object(schema), None),
            _ => match map_values(schema) {
                Some(values) => (Shape::MapOf(values), None),
                None => (Shape::Leaf(Ty::Map), None),
            },
        },
        Some(other) => (
            Shape::Leaf(Ty::Any),
            Some(format!(
                "The schema declares type `{other}`, which the generator does not know; the value is kept as raw JSON."
            )),
        ),
        None => {
            let note = match declared {
                Some(t) => format!(
                    "The schema declares the type union `{}`; the value is kept as raw JSON.",
                    serde_json::to_string(t).unwrap_or_default()
                ),
                None => "The schema declares no type; the value is kept as raw JSON.".to_owned(),
            };
            (Shape::Leaf(Ty::Any), Some(note))
        }
    }
}

/// Whether `null` is a value the schema allows (a type list with `null`, a `null` branch of
/// `anyOf`/`oneOf`, `null` among the `enum` values or as the `const`).
pub fn nullable(schema: &FieldSchema) -> bool {
    let in_types = matches!(&schema.ty, Some(agents_schema::SchemaType::Union(names)) if names.iter().any(|n| n == "null"));
    let in_branches = [&schema.any_of, &schema.one_of]
        .into_iter()
        .flatten()
        .any(|branches| branches.iter().any(is_null));
    let in_values = schema
        .enum_values
        .as_ref()
        .is_some_and(|v| v.iter().any(serde_json::Value::is_null));
    in_types || in_branches || in_values || is_null(schema)
}

/// What a value of type `ty` is, in words, for fields whose schema says nothing else.
pub fn kind_text(ty: &Ty) -> &'static str {
    match ty {
        Ty::String => "a string",
        Ty::Number => "a number",
        Ty::Integer => "an integer",
        Ty::Boolean => "a boolean",
        Ty::Page => "a page number",
        Ty::Array(_) => "a list",
        Ty::Map | Ty::Struct(_) | Ty::Boxed(_) => "an object",
        Ty::MapOf(_) => "an object of named values",
        Ty::Enum(_) => "one of the listed values",
        Ty::Union(_) => "one of several kinds of value",
        Ty::Any => "any JSON value",
    }
}

/// A schema that only `null` matches.
fn is_null(schema: &FieldSchema) -> bool {
    schema
        .ty
        .as_ref()
        .is_some_and(|t| matches!(t, agents_schema::SchemaType::One(n) if n == "null"))
        || schema
            .const_value
            .as_ref()
            .is_some_and(serde_json::Value::is_null)
}

/// Whether the branches of an `anyOf`/`oneOf` only constrain a value the rest of the schema
/// types (`{"required": ["tasks"]}` and the like: no type, properties, items, values or
/// references of their own), so that they do not make the value a union.
fn constraints_only(branches: &[FieldSchema]) -> bool {
    branches.iter().all(|b| {
        b.ty.is_none()
            && b.reference.is_none()
            && b.properties.is_none()
            && b.items.is_none()
            && b.prefix_items.is_none()
            && b.additional_properties.is_none()
            && b.pattern_properties.is_none()
            && b.enum_values.is_none()
            && b.const_value.is_none()
            && b.any_of.is_none()
            && b.one_of.is_none()
            && b.all_of.is_none()
    })
}

/// The strings of schemas that are each an `enum` of strings or a string `const` (`null`
/// aside), in order and without repeats; `None` when one of them is anything else.
fn strings<'a>(schemas: impl IntoIterator<Item = &'a FieldSchema>) -> Option<Vec<&'a str>> {
    let mut out: Vec<&str> = Vec::new();
    for s in schemas {
        let values: Vec<&serde_json::Value> = match (&s.enum_values, &s.const_value) {
            (Some(list), _) => list.iter().collect(),
            (None, Some(c)) => vec![c],
            (None, None) => return None,
        };
        for v in values.into_iter().filter(|v| !v.is_null()) {
            let text = v.as_str()?;
            if !out.contains(&text) {
                out.push(text);
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The Rust type of a literal value.
fn value_ty(v: &serde_json::Value) -> Ty {
    match v {
        serde_json::Value::String(_) => Ty::String,
        serde_json::Value::Bool(_) => Ty::Boolean,
        serde_json::Value::Number(n) if n.is_i64() || n.is_u64() => Ty::Integer,
        serde_json::Value::Number(_) => Ty::Number,
        serde_json::Value::Object(_) => Ty::Map,
        _ => Ty::Any,
    }
}

/// The schema of an object's values when its keys are free: `additionalProperties` with a
/// schema that says something, or the one `patternProperties` schema.
fn map_values(schema: &FieldSchema) -> Option<&FieldSchema> {
    if let Some(extra) = schema.additional_properties.as_deref()
        && *extra != FieldSchema::default()
        && !extra.is_never()
    {
        return Some(extra);
    }
    match schema
        .pattern_properties
        .as_ref()
        .map(|p| p.values().collect::<Vec<_>>())
    {
        Some(values) if values.len() == 1 && schema.additional_properties.is_none() => {
            values.first().copied()
        }
        _ => None,
    }
}

/// `schema` with its `allOf` branches (references followed) merged in: properties and
/// `required` joined, the first description and type kept. `None` when a branch is not an
/// object, or declares another type than the others.
fn merge(schema: &FieldSchema, all: &[FieldSchema], doc: &FieldSchema) -> Option<FieldSchema> {
    let mut out = FieldSchema {
        all_of: None,
        ..schema.clone()
    };
    for branch in all {
        // Chains of references are followed a bounded number of times (a cycle is not merged).
        let mut b = branch;
        for _ in 0..16 {
            match &b.reference {
                Some(r) => b = doc.resolve(r)?,
                None => break,
            }
        }
        let alternatives = [&b.any_of, &b.one_of]
            .into_iter()
            .flatten()
            .any(|branches| !constraints_only(branches));
        if b.reference.is_some() || b.all_of.is_some() || alternatives {
            return None;
        }
        let object = b.properties.is_some()
            || b.ty.as_ref().and_then(agents_schema::SchemaType::single) == Some("object");
        if !object {
            return None;
        }
        out.ty
            .get_or_insert(agents_schema::SchemaType::One("object".to_owned()));
        if out.description.is_none() {
            out.description.clone_from(&b.description);
        }
        let props = out.properties.get_or_insert_with(Default::default);
        for (k, v) in b.properties.iter().flatten() {
            props.entry(k.clone()).or_insert_with(|| v.clone());
        }
        let required = out.required.get_or_insert_with(Vec::new);
        for r in b.required.iter().flatten() {
            if !required.contains(r) {
                required.push(r.clone());
            }
        }
    }
    Some(out)
}

/// The object a union (`anyOf` / `oneOf`) of object schemas describes, as one object: every
/// object branch's properties (references, nested unions and `allOf` followed), a name's schema
/// taken from the first branch that declares it when every branch declaring it agrees on the kind
/// of value, and `{}` (raw JSON) where they do not. A name is required only when every object
/// branch requires it. `None` when no branch is an object with properties.
pub fn union_object(schema: &FieldSchema, doc: &FieldSchema) -> Option<FieldSchema> {
    let mut objects = Vec::new();
    let mut followed = Vec::new();
    for branches in [&schema.any_of, &schema.one_of].into_iter().flatten() {
        for branch in branches {
            objects_of(branch, doc, &mut objects, &mut followed, 0);
        }
    }
    let first = objects.first()?;
    let mut out = FieldSchema {
        ty: Some(agents_schema::SchemaType::One("object".to_owned())),
        description: schema.description.clone(),
        ..FieldSchema::default()
    };
    let mut required: Vec<String> = first.required.clone().unwrap_or_default();
    let props = out.properties.get_or_insert_with(Default::default);
    let mut conflicting: Vec<String> = Vec::new();
    for object in &objects {
        let own = object.required.as_deref().unwrap_or_default();
        required.retain(|r| own.contains(r));
        for (name, field) in object.properties.iter().flatten() {
            let Some(kept) = props.get_mut(name) else {
                props.insert(name.clone(), field.clone());
                continue;
            };
            // The same schema, or the same definition described differently in each branch.
            if kept == field || (kept.reference.is_some() && kept.reference == field.reference) {
                continue;
            }
            let same_kind = kind(kept, doc).is_some() && kind(kept, doc) == kind(field, doc);
            if !same_kind {
                conflicting.push(name.clone());
            } else if kind(kept, doc) == Some(kind_text(&Ty::String)) {
                // Branches that each allow other strings (`"type": "app"` in one, `"base"` in
                // another) allow all of them: their values listed together, or any string.
                let merged = strings_of([&*kept, field], doc);
                *kept = FieldSchema {
                    description: kept.description.take(),
                    ..merged
                };
            }
        }
    }
    for name in conflicting {
        if let Some(field) = props.get_mut(&name) {
            *field = FieldSchema {
                description: field.description.take(),
                ..FieldSchema::default()
            };
        }
    }
    out.required = Some(required);
    Some(out)
}

/// Collects the object schemas `schema` may be (itself, what it refers to, its union's
/// branches, its `allOf` merged), at most 16 levels deep and following each reference once (a
/// union whose branches refer back to it is not walked again for every branch).
fn objects_of(
    schema: &FieldSchema,
    doc: &FieldSchema,
    out: &mut Vec<FieldSchema>,
    followed: &mut Vec<String>,
    depth: usize,
) {
    if depth > 16 {
        return;
    }
    if let Some(r) = &schema.reference {
        if followed.contains(r) {
            return;
        }
        followed.push(r.clone());
        if let Some(target) = doc.resolve(r) {
            objects_of(target, doc, out, followed, depth + 1);
        }
        return;
    }
    if schema.properties.as_ref().is_some_and(|p| !p.is_empty()) && schema.all_of.is_none() {
        out.push(schema.clone());
        return;
    }
    match classify(schema, doc).0 {
        Shape::Object(object) => out.push(object.clone()),
        Shape::Merged(merged) => objects_of(&merged, doc, out, followed, depth + 1),
        Shape::Branch(_, _, branch) => objects_of(branch, doc, out, followed, depth + 1),
        _ => {
            for branches in [&schema.any_of, &schema.one_of].into_iter().flatten() {
                for branch in branches {
                    objects_of(branch, doc, out, followed, depth + 1);
                }
            }
        }
    }
}

/// A kind of JSON value, as a variant of a union's enum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A string (or one of listed strings).
    String,
    /// A number.
    Number,
    /// A whole number.
    Integer,
    /// `true` or `false`.
    Boolean,
    /// An array.
    List,
    /// An object.
    Object,
}

impl Kind {
    /// The variant's name.
    pub fn variant(self) -> &'static str {
        match self {
            Kind::String => "String",
            Kind::Number => "Number",
            Kind::Integer => "Integer",
            Kind::Boolean => "Boolean",
            Kind::List => "List",
            Kind::Object => "Object",
        }
    }
}

/// What a union (`anyOf`/`oneOf` whose non-null branches are not all strings) becomes.
#[derive(Debug)]
pub enum UnionPlan {
    /// Raw JSON, with the docs' note: a branch whose kind of value cannot be told.
    Raw(String),
    /// One schema after all (several objects merged into one, integers taken by a number, ...).
    One(Box<FieldSchema>),
    /// An enum with one variant per kind of value, in the order the schema first names each;
    /// each with its schema and its pointer below the union's (`/oneOf/1`, or `/oneOf` where
    /// several branches were merged).
    Kinds(Vec<(Kind, FieldSchema, String)>),
}

/// The plan of a union: its branches grouped by the kind of value each allows, so that decoding
/// can pick a variant by the kind of value sent. Branches of one kind are merged (objects into
/// one object with every branch's fields as [`union_object`] does, strings into one list of
/// values or any string, arrays of different items into a list of raw JSON); integers go to
/// the number variant when there is one.
pub fn union_plan(
    keyword: &'static str,
    branches: &[(usize, &FieldSchema)],
    doc: &FieldSchema,
) -> UnionPlan {
    let mut groups: Vec<(Kind, Vec<(usize, &FieldSchema)>)> = Vec::new();
    for &(i, branch) in branches {
        let Some(kind) = kind_of(branch, doc) else {
            return UnionPlan::Raw(format!(
                "The value is one of {} schemas (`{keyword}`), and the kind of value of branch {i} \
                 cannot be told; it is kept as raw JSON.",
                branches.len()
            ));
        };
        match groups.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, members)) => members.push((i, branch)),
            None => groups.push((kind, vec![(i, branch)])),
        }
    }
    if groups.iter().any(|(k, _)| *k == Kind::Number)
        && let Some(at) = groups.iter().position(|(k, _)| *k == Kind::Integer)
    {
        groups.remove(at);
    }
    let mut kinds: Vec<(Kind, FieldSchema, String)> = groups
        .into_iter()
        .map(|(kind, members)| match members.as_slice() {
            [(i, only)] => (kind, (*only).clone(), format!("/{keyword}/{i}")),
            _ => (kind, merge_kind(kind, &members, doc), format!("/{keyword}")),
        })
        .collect();
    if kinds.len() == 1
        && let Some((_, schema, _)) = kinds.pop()
    {
        return UnionPlan::One(Box::new(schema));
    }
    UnionPlan::Kinds(kinds)
}

/// The kind of value a union's branch allows (references and single branches followed);
/// `None` when it allows any value or several kinds.
fn kind_of(schema: &FieldSchema, doc: &FieldSchema) -> Option<Kind> {
    let mut s = schema;
    for _ in 0..16 {
        match classify(s, doc).0 {
            Shape::Ref(r) => s = doc.resolve(r)?,
            Shape::Branch(_, _, branch) => s = branch,
            Shape::Leaf(Ty::String) | Shape::Enum(_) => return Some(Kind::String),
            Shape::Leaf(Ty::Number) => return Some(Kind::Number),
            Shape::Leaf(Ty::Integer) => return Some(Kind::Integer),
            Shape::Leaf(Ty::Boolean) => return Some(Kind::Boolean),
            Shape::Array(_) => return Some(Kind::List),
            Shape::Object(_) | Shape::MapOf(_) | Shape::Merged(_) | Shape::Leaf(Ty::Map) => {
                return Some(Kind::Object);
            }
            _ => return None,
        }
    }
    None
}

/// Several branches of one kind as one schema.
fn merge_kind(kind: Kind, members: &[(usize, &FieldSchema)], doc: &FieldSchema) -> FieldSchema {
    let typed = |name: &str| FieldSchema {
        ty: Some(agents_schema::SchemaType::One(name.to_owned())),
        ..FieldSchema::default()
    };
    let first = members
        .first()
        .map(|(_, s)| (*s).clone())
        .unwrap_or_default();
    match kind {
        Kind::Object => {
            let union = FieldSchema {
                any_of: Some(members.iter().map(|(_, s)| (*s).clone()).collect()),
                ..FieldSchema::default()
            };
            union_object(&union, doc).unwrap_or_else(|| typed("object"))
        }
        Kind::String => strings_of(members.iter().map(|(_, s)| *s), doc),
        Kind::List if members.iter().all(|(_, s)| **s == first) => first,
        Kind::List => typed("array"),
        Kind::Number | Kind::Integer | Kind::Boolean => first,
    }
}

/// One string schema allowing every string `schemas` allow: their listed values together, in
/// order and without repeats, or any string when one of them lists none.
fn strings_of<'s>(
    schemas: impl IntoIterator<Item = &'s FieldSchema>,
    doc: &FieldSchema,
) -> FieldSchema {
    let lists = schemas
        .into_iter()
        .map(|s| string_values(s, doc))
        .collect::<Option<Vec<_>>>();
    FieldSchema {
        ty: Some(agents_schema::SchemaType::One("string".to_owned())),
        enum_values: lists.map(|lists| {
            let mut all: Vec<serde_json::Value> = Vec::new();
            for v in lists.into_iter().flatten() {
                if !all.contains(&v) {
                    all.push(v);
                }
            }
            all
        }),
        ..FieldSchema::default()
    }
}

/// The strings a schema lists (references and its one non-null branch followed); `None` when
/// it allows any string.
fn string_values(schema: &FieldSchema, doc: &FieldSchema) -> Option<Vec<serde_json::Value>> {
    let mut s = schema;
    for _ in 0..16 {
        match classify(s, doc).0 {
            Shape::Ref(r) => s = doc.resolve(r)?,
            Shape::Branch(_, _, branch) => s = branch,
            Shape::Enum(values) => {
                return Some(values.into_iter().map(serde_json::Value::from).collect());
            }
            _ => return None,
        }
    }
    None
}

/// The kind of JSON value a schema describes (`None`: any), references followed a bounded
/// number of times.
fn kind(schema: &FieldSchema, doc: &FieldSchema) -> Option<&'static str> {
    let mut s = schema;
    for _ in 0..16 {
        match classify(s, doc).0 {
            Shape::Ref(r) => s = doc.resolve(r)?,
            Shape::Branch(_, _, branch) => s = branch,
            Shape::Leaf(Ty::Any) => return None,
            Shape::Leaf(Ty::Map) | Shape::Object(_) | Shape::MapOf(_) | Shape::Merged(_) => {
                return Some("object");
            }
            Shape::Leaf(ty) => return Some(kind_text(&ty)),
            Shape::Array(_) => return Some("array"),
            Shape::Enum(_) => return Some(kind_text(&Ty::String)),
            Shape::Union(..) => return None,
        }
    }
    None
}

pub use agents_schema::inputs::{ItemTy, ParamTy};

/// The Rust type of an input parameter of wire kind `kind`. The kind itself is decided in
/// `agents_schema::inputs::param_type`, where the CLI and the request check read it too.
pub fn param_ty(kind: ParamTy) -> Ty {
    match kind {
        ParamTy::String => Ty::String,
        ParamTy::Number => Ty::Number,
        ParamTy::Integer => Ty::Integer,
        ParamTy::Page => Ty::Page,
        ParamTy::Boolean => Ty::Boolean,
        ParamTy::List(item) => Ty::Array(Box::new(match item {
            ItemTy::String => Ty::String,
            ItemTy::Number => Ty::Number,
            ItemTy::Integer => Ty::Integer,
            ItemTy::Boolean => Ty::Boolean,
            ItemTy::Any => Ty::Any,
        })),
        ParamTy::Object => Ty::Map,
        ParamTy::Any => Ty::Any,
    }
}
