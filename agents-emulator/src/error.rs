//! Error answers. Every error body is JSON and names the thing at fault:
//! `{"error": {"code": "...", "message": "...", "field": "params.asin"}}` (the documentation shows only the
//! 429 shapes; this one extends the nested 429 shape).

use agents_runtime::validate::ProblemKind;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// An error answer of the emulator.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// Machine-readable code (`VALIDATION_ERROR`, `UNAUTHORIZED`, …).
    pub code: &'static str,
    /// What went wrong.
    pub message: String,
    /// The request field at fault, as a JSON path (`params.asin`, `formats[1]`).
    pub field: Option<String>,
    /// Further details (for example every broken input rule).
    pub details: Option<Value>,
}

impl ApiError {
    /// An error with this status and code.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
            field: None,
            details: None,
        }
    }

    /// An answer to a request with this problem. Its kind decides the status, in
    /// [`ProblemKind::status`], the one place that does for the client's checks and every
    /// endpoint here; the call site only says what is wrong.
    pub fn problem(
        kind: ProblemKind,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self::with_status(kind.status(), field, message)
    }

    /// An answer with the status [`ProblemKind::status`] chose (400 or 422), and its code.
    pub fn with_status(status: u16, field: impl Into<String>, message: impl Into<String>) -> Self {
        if status == 422 {
            Self::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "VALIDATION_ERROR",
                message,
            )
            .at(field)
        } else {
            Self::new(StatusCode::BAD_REQUEST, "BAD_REQUEST", message).at(field)
        }
    }

    /// A required field is missing.
    pub fn missing(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::problem(ProblemKind::Missing, field, message)
    }

    /// The body or a field is not the shape the endpoint reads (see [`ProblemKind::Malformed`]).
    pub fn malformed(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::problem(ProblemKind::Malformed, field, message)
    }

    /// A value is not of the kind its field takes.
    pub fn wrong_type(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::problem(ProblemKind::WrongType, field, message)
    }

    /// A value of the right kind is refused (out of range, unknown, conflicting).
    pub fn refused(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::problem(ProblemKind::Rule, field, message)
    }

    /// 404: no such resource (for this account).
    pub fn not_found(what: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "NOT_FOUND", what)
    }

    /// Names the field at fault.
    pub fn at(mut self, field: impl Into<String>) -> Self {
        let field = field.into();
        if !field.is_empty() {
            self.field = Some(field);
        }
        self
    }

    /// Adds details.
    pub fn details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// Every invalid item of a batch in one answer, so a batch with 30 bad items reports 30:
    /// the first item's status and field, a message counting them, and each item's field,
    /// code and message in `details`. `None` when there are none.
    pub fn items(errors: Vec<ApiError>) -> Option<ApiError> {
        let first = errors.first()?.clone();
        let details: Vec<Value> = errors
            .iter()
            .map(|e| json!({ "field": e.field, "code": e.code, "message": e.message }))
            .collect();
        let message = match errors.len() {
            1 => first.message.clone(),
            n => format!("{n} items are invalid; the first: {}", first.message),
        };
        Some(ApiError {
            message,
            details: Some(Value::Array(details)),
            ..first
        })
    }

    /// The JSON body.
    pub fn body(&self) -> Value {
        let mut error = json!({ "code": self.code, "message": self.message });
        if let Some(field) = &self.field {
            error["field"] = json!(field);
        }
        if let Some(details) = &self.details {
            error["details"] = details.clone();
        }
        json!({ "error": error })
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, axum::Json(self.body())).into_response()
    }
}
