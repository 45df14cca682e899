//! A params type's `validate()`: per input, a check of a value given with `.param(name, …)`
//! and a check of the field, each a statement cloned from a template and filled in. Inputs
//! repeat the same few statements, and quoting them only to parse them back for prettyplease
//! was most of the time of generating a small agent.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;
use syn::{
    Block, Expr, ExprMethodCall, ImplItem, ImplItemFn, Item, Lit, LitStr, Member, Pat,
    PathArguments, Stmt, Type,
};

use super::shape::shape;
use crate::ir::ParamIr;
use crate::rules::Rule;
use crate::types::Ty;

/// The statements `validate()` is made of, parsed once per run.
pub(super) struct Validate {
    /// The function with its doc and an empty body.
    func: ImplItemFn,
    /// `Violations::new("__agent").finish()`: the body when nothing is checked.
    nothing: Stmt,
    /// `static __P: Pattern = Pattern::new("__re");`
    pattern: Stmt,
    /// `let mut v = Violations::new("__agent");`
    start: Stmt,
    /// A value given under the input's name, read as the input's type and not checked further.
    given: Stmt,
    /// The same, its value then checked by the rules put in its innermost block.
    given_checked: Stmt,
    /// `let value = value.as_str();`, `let value = &value;`: a given value as rules take it.
    given_str: Stmt,
    given_ref: Stmt,
    /// `{ let value = self.__x.as_str(); }`, `{ let value = &self.__x; }`: a required input.
    required_str: Stmt,
    required_ref: Stmt,
    /// `if let Some(value) = self.__x.as_deref() {}`, `… .as_ref() {}`: an optional input.
    optional_str: Stmt,
    optional_ref: Stmt,
    /// `self.__x.is_some()`: whether an optional input's setter was called.
    is_some: Expr,
    /// `v.__m("__json", "__text", value, 0);`: a rule.
    rule: Stmt,
    /// `v.country_code("__json", value);`
    country: Stmt,
    /// The value as a rule on numbers takes it, by the input's type: `*value`, `*value as
    /// f64` (integers), `f64::from(*value)` (pages).
    number: Expr,
    integer: Expr,
    page: Expr,
    /// `&__P` and `&[]`: the arguments of `pattern` and `one_of`.
    pattern_arg: Expr,
    values_arg: Expr,
    /// `static INPUT_SCHEMA: InputSchema = InputSchema::new("__schema");`: the input document
    /// the keywords no typed rule covers are judged by.
    input_schema: Stmt,
    /// `INPUT_SCHEMA.judge(&mut v, self);`
    judge: Stmt,
    /// `v.finish()`.
    finish: Stmt,
}

/// What replaces a template's placeholders: the strings `"__json"`, `"__setter"`, `"__text"`,
/// `"__agent"`, `"__re"`, the field `__x`, the static `__P` and the type `()`.
#[derive(Default)]
struct Fill<'a> {
    json: &'a str,
    setter: &'a str,
    text: &'a str,
    agent: &'a str,
    re: &'a str,
    field: Option<&'a Ident>,
    pattern: Option<&'a Ident>,
    inner: Option<&'a Type>,
}

impl Validate {
    pub(super) fn new(rt: &TokenStream) -> syn::Result<Self> {
        let mut func: ImplItemFn = match syn::parse2(quote! {
            /// Checks the rules of the agent's inputs; every broken rule is reported.
            pub fn validate(&self) -> Result<(), #rt::ValidationError> {
                #rt::validate::Violations::new("__agent").finish();
                static __P: #rt::validate::Pattern = #rt::validate::Pattern::new("__re");
                let mut v = #rt::validate::Violations::new("__agent");
                if let Some(given) = self.extra.get("__json") {
                    let set = true;
                    let _: Option<()> = v.given("__json", "__setter", set, given);
                }
                if let Some(given) = self.extra.get("__json") {
                    let set = true;
                    let value: Option<()> = v.given("__json", "__setter", set, given);
                    if let Some(value) = value {}
                }
                let value = value.as_str();
                let value = &value;
                { let value = self.__x.as_str(); }
                { let value = &self.__x; }
                if let Some(value) = self.__x.as_deref() {}
                if let Some(value) = self.__x.as_ref() {}
                self.__x.is_some();
                v.__m("__json", "__text", value, 0);
                v.country_code("__json", value);
                *value;
                *value as f64;
                f64::from(*value);
                &__P;
                &[];
                static INPUT_SCHEMA: #rt::validate::InputSchema =
                    #rt::validate::InputSchema::new("__schema");
                INPUT_SCHEMA.judge(&mut v, self);
                v.finish()
            }
        })? {
            ImplItem::Fn(f) => f,
            _ => return Err(shape("validate")),
        };
        let mut stmts = std::mem::take(&mut func.block.stmts).into_iter();
        let mut next = || stmts.next().ok_or_else(|| shape("validate"));
        let expr = |s: Stmt| match s {
            Stmt::Expr(e, _) => Ok(e),
            _ => Err(shape("validate")),
        };
        let mut nothing = next()?;
        if let Stmt::Expr(_, semi) = &mut nothing {
            // The body's only statement, its value.
            *semi = None;
        }
        Ok(Validate {
            nothing,
            pattern: next()?,
            start: next()?,
            given: next()?,
            given_checked: next()?,
            given_str: next()?,
            given_ref: next()?,
            required_str: next()?,
            required_ref: next()?,
            optional_str: next()?,
            optional_ref: next()?,
            is_some: expr(next()?)?,
            rule: next()?,
            country: next()?,
            number: expr(next()?)?,
            integer: expr(next()?)?,
            page: expr(next()?)?,
            pattern_arg: expr(next()?)?,
            values_arg: expr(next()?)?,
            input_schema: next()?,
            judge: next()?,
            finish: next()?,
            func,
        })
    }

    /// `validate()` of the inputs `fields` of the params type `params` of agent `agent`;
    /// `inner` holds each input's Rust type (without `Option`), in order; `judged` is the input
    /// document the params are also judged by, if any (pretty JSON).
    pub(super) fn build(
        &self,
        agent: &str,
        params: &str,
        fields: &[ParamIr],
        inner: &[Type],
        judged: Option<&str>,
    ) -> syn::Result<ImplItem> {
        let mut func = self.func.clone();
        let mut statics = Vec::new();
        let mut checks = Vec::new();
        for (f, ty) in fields.iter().zip(inner) {
            let id = crate::naming::ident(&f.ident);
            let mut these = Vec::new();
            if f.country {
                these.push(self.filled(&self.country, &fill_json(&f.json)));
            }
            for (text, rule) in &f.rules {
                these.push(self.rule(f, text, rule, &mut statics)?);
            }
            // A value given with `.param(name, …)` under a declared input's name is read as
            // the setter's type and checked by the same rules, before anything is sent.
            if !matches!(f.ty, Ty::Any) {
                let setter = if f.required {
                    format!("{params}::new(…)")
                } else {
                    format!(".{}(…)", f.ident)
                };
                let fill = Fill {
                    json: &f.json,
                    setter: &setter,
                    field: Some(&id),
                    inner: Some(ty),
                    ..Fill::default()
                };
                let mut given = if these.is_empty() {
                    self.filled(&self.given, &fill)
                } else {
                    self.filled(&self.given_checked, &fill)
                };
                let body = then_branch(&mut given)?;
                if !f.required {
                    // `let set = true;` for a required input, whose constructor sets it.
                    let Some(Stmt::Local(set)) = body.stmts.first_mut() else {
                        return Err(shape("validate"));
                    };
                    let Some(init) = &mut set.init else {
                        return Err(shape("validate"));
                    };
                    *init.expr = self.filled_expr(&self.is_some, &fill);
                }
                if !these.is_empty() {
                    let checked = match body.stmts.last_mut() {
                        Some(last) => then_branch(last)?,
                        None => return Err(shape("validate")),
                    };
                    checked.stmts.push(if matches!(f.ty, Ty::String) {
                        self.given_str.clone()
                    } else {
                        self.given_ref.clone()
                    });
                    checked.stmts.extend(these.iter().cloned());
                }
                checks.push(given);
            }
            if these.is_empty() {
                continue;
            }
            let fill = Fill {
                field: Some(&id),
                ..Fill::default()
            };
            let string = matches!(f.ty, Ty::String);
            let mut check = match (f.required, string) {
                (true, true) => self.filled(&self.required_str, &fill),
                (true, false) => self.filled(&self.required_ref, &fill),
                (false, true) => self.filled(&self.optional_str, &fill),
                (false, false) => self.filled(&self.optional_ref, &fill),
            };
            match &mut check {
                Stmt::Expr(Expr::Block(block), _) => block.block.stmts.extend(these),
                other => then_branch(other)?.stmts.extend(these),
            }
            checks.push(check);
        }
        if let Some(document) = judged {
            statics.push(self.input_schema(document)?);
            checks.push(self.judge.clone());
        }
        let agent = Fill {
            agent,
            ..Fill::default()
        };
        func.block.stmts = if checks.is_empty() {
            vec![self.filled(&self.nothing, &agent)]
        } else {
            let mut stmts = statics;
            stmts.push(self.filled(&self.start, &agent));
            stmts.extend(checks);
            stmts.push(self.finish.clone());
            stmts
        };
        Ok(ImplItem::Fn(func))
    }

    /// `v.<check>(json, text, value, bound);` for one rule of input `f`; a pattern's static is
    /// added to `statics`.
    fn rule(
        &self,
        f: &ParamIr,
        text: &str,
        rule: &Rule,
        statics: &mut Vec<Stmt>,
    ) -> syn::Result<Stmt> {
        let value = || match f.ty {
            Ty::Page => self.page.clone(),
            Ty::Integer => self.integer.clone(),
            _ => self.number.clone(),
        };
        let count = |n: usize| {
            Expr::Lit(syn::ExprLit {
                attrs: Vec::new(),
                lit: Lit::new(Literal::usize_unsuffixed(n)),
            })
        };
        let float = |x: f64| {
            Expr::Lit(syn::ExprLit {
                attrs: Vec::new(),
                lit: Lit::new(Literal::f64_suffixed(x)),
            })
        };
        let (method, value, bound) = match rule {
            Rule::MinLength(n) => ("min_length", None, count(*n)),
            Rule::MaxLength(n) => ("max_length", None, count(*n)),
            Rule::Minimum(x) => ("minimum", Some(value()), float(*x)),
            Rule::Maximum(x) => ("maximum", Some(value()), float(*x)),
            Rule::ExclusiveMinimum(x) => ("exclusive_minimum", Some(value()), float(*x)),
            Rule::ExclusiveMaximum(x) => ("exclusive_maximum", Some(value()), float(*x)),
            Rule::MultipleOf(x) => ("multiple_of", Some(value()), float(*x)),
            Rule::MinItems(n) => ("min_items", None, count(*n)),
            Rule::MaxItems(n) => ("max_items", None, count(*n)),
            Rule::Pattern(re) => {
                let name = Ident::new(&format!("PATTERN_{}", statics.len()), Span::call_site());
                statics.push(self.filled(
                    &self.pattern,
                    &Fill {
                        re: re.as_str(),
                        pattern: Some(&name),
                        ..Fill::default()
                    },
                ));
                let fill = Fill {
                    pattern: Some(&name),
                    ..Fill::default()
                };
                ("pattern", None, self.filled_expr(&self.pattern_arg, &fill))
            }
            Rule::OneOf(values) => {
                let mut arg = self.values_arg.clone();
                let Expr::Reference(r) = &mut arg else {
                    return Err(shape("one_of"));
                };
                let Expr::Array(array) = &mut *r.expr else {
                    return Err(shape("one_of"));
                };
                array.elems.extend(values.iter().map(|v| {
                    Expr::Lit(syn::ExprLit {
                        attrs: Vec::new(),
                        lit: Lit::Str(LitStr::new(v, Span::call_site())),
                    })
                }));
                ("one_of", None, arg)
            }
        };
        let mut stmt = self.filled(
            &self.rule,
            &Fill {
                json: &f.json,
                text,
                ..Fill::default()
            },
        );
        let Stmt::Expr(Expr::MethodCall(call), _) = &mut stmt else {
            return Err(shape("rule"));
        };
        set_call(call, method, value, bound)?;
        Ok(stmt)
    }

    /// The static holding the input document `document`, written as a raw string lined up
    /// with the body it is in, so that it reads as JSON.
    fn input_schema(&self, document: &str) -> syn::Result<Stmt> {
        let mut stmt = self.input_schema.clone();
        let Stmt::Item(Item::Static(item)) = &mut stmt else {
            return Err(shape("input schema"));
        };
        let Expr::Call(call) = &mut *item.expr else {
            return Err(shape("input schema"));
        };
        let Some(Expr::Lit(arg)) = call.args.first_mut() else {
            return Err(shape("input schema"));
        };
        let raw = crate::format::raw_json(document, "        ");
        arg.lit = match raw.parse::<Literal>() {
            Ok(literal) => Lit::new(literal),
            Err(_) => Lit::Str(LitStr::new(document, Span::call_site())),
        };
        Ok(stmt)
    }

    fn filled(&self, template: &Stmt, fill: &Fill<'_>) -> Stmt {
        let mut stmt = template.clone();
        fill_stmt(&mut stmt, fill);
        stmt
    }

    fn filled_expr(&self, template: &Expr, fill: &Fill<'_>) -> Expr {
        let mut expr = template.clone();
        fill_expr(&mut expr, fill);
        expr
    }
}

fn fill_json(json: &str) -> Fill<'_> {
    Fill {
        json,
        ..Fill::default()
    }
}

/// Names the method of `v.__m(json, text, value, 0)` and sets its last argument, and its third
/// when the rule takes the value in another form than `value`.
fn set_call(
    call: &mut ExprMethodCall,
    method: &str,
    value: Option<Expr>,
    bound: Expr,
) -> syn::Result<()> {
    call.method = Ident::new(method, Span::call_site());
    let mut args = call.args.iter_mut().skip(2);
    let (Some(third), Some(last)) = (args.next(), args.next()) else {
        return Err(shape("rule"));
    };
    if let Some(value) = value {
        *third = value;
    }
    *last = bound;
    Ok(())
}

/// The block of `if …{}` (or of a block statement).
fn then_branch(stmt: &mut Stmt) -> syn::Result<&mut Block> {
    match stmt {
        Stmt::Expr(Expr::If(e), _) => Ok(&mut e.then_branch),
        Stmt::Expr(Expr::Block(e), _) => Ok(&mut e.block),
        _ => Err(shape("validate")),
    }
}

fn fill_stmt(stmt: &mut Stmt, fill: &Fill<'_>) {
    match stmt {
        Stmt::Local(local) => {
            fill_pat(&mut local.pat, fill);
            if let Some(init) = &mut local.init {
                fill_expr(&mut init.expr, fill);
            }
        }
        Stmt::Item(Item::Static(item)) => {
            if let Some(name) = fill.pattern {
                item.ident = name.clone();
            }
            fill_expr(&mut item.expr, fill);
        }
        Stmt::Expr(expr, _) => fill_expr(expr, fill),
        _ => {}
    }
}

fn fill_block(block: &mut Block, fill: &Fill<'_>) {
    for stmt in &mut block.stmts {
        fill_stmt(stmt, fill);
    }
}

fn fill_pat(pat: &mut Pat, fill: &Fill<'_>) {
    if let Pat::Type(typed) = pat {
        fill_type(&mut typed.ty, fill);
    }
}

fn fill_type(ty: &mut Type, fill: &Fill<'_>) {
    match ty {
        Type::Tuple(unit) if unit.elems.is_empty() => {
            if let Some(inner) = fill.inner {
                *ty = inner.clone();
            }
        }
        Type::Path(path) => {
            for segment in &mut path.path.segments {
                if let PathArguments::AngleBracketed(args) = &mut segment.arguments {
                    for arg in &mut args.args {
                        if let syn::GenericArgument::Type(ty) = arg {
                            fill_type(ty, fill);
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

fn fill_expr(expr: &mut Expr, fill: &Fill<'_>) {
    match expr {
        Expr::Lit(lit) => {
            if let Lit::Str(s) = &mut lit.lit {
                let with = match s.value().as_str() {
                    "__json" => fill.json,
                    "__setter" => fill.setter,
                    "__text" => fill.text,
                    "__agent" => fill.agent,
                    "__re" => fill.re,
                    _ => return,
                };
                *s = LitStr::new(with, s.span());
            }
        }
        Expr::Path(path) => {
            if let Some(name) = fill.pattern
                && path.path.is_ident("__P")
                && let Some(segment) = path.path.segments.first_mut()
            {
                segment.ident = name.clone();
            }
        }
        Expr::Field(field) => {
            fill_expr(&mut field.base, fill);
            if let (Some(name), Member::Named(member)) = (fill.field, &mut field.member)
                && member == "__x"
            {
                *member = name.clone();
            }
        }
        Expr::MethodCall(call) => {
            fill_expr(&mut call.receiver, fill);
            for arg in &mut call.args {
                fill_expr(arg, fill);
            }
        }
        Expr::Call(call) => {
            fill_expr(&mut call.func, fill);
            for arg in &mut call.args {
                fill_expr(arg, fill);
            }
        }
        Expr::If(e) => {
            fill_expr(&mut e.cond, fill);
            fill_block(&mut e.then_branch, fill);
        }
        Expr::Let(e) => {
            fill_pat(&mut e.pat, fill);
            fill_expr(&mut e.expr, fill);
        }
        Expr::Block(e) => fill_block(&mut e.block, fill),
        Expr::Reference(e) => fill_expr(&mut e.expr, fill),
        Expr::Unary(e) => fill_expr(&mut e.expr, fill),
        Expr::Cast(e) => fill_expr(&mut e.expr, fill),
        _ => {}
    }
}
