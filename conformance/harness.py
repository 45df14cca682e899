"""What both conformance suites share: calling the vendor's client, validating bodies strictly
against its own models, expecting its exception classes, checking fixtures, reporting.

Every 2xx body is validated twice: by the SDK with `_strict_response_validation=True` (full
validation instead of its lenient construction), and as raw JSON with pydantic's strict mode
against the model the call is documented to return. Error statuses must raise the SDK's
documented exception classes with a JSON error body.
"""

import pathlib
import sys
import warnings

import pydantic

# Some SDK methods are marked deprecated in favour of newer names; they are still the calls that
# reach these endpoints.
warnings.simplefilter("ignore", DeprecationWarning)


class Suite:
    def __init__(self, sdk, base, key):
        self.sdk = sdk
        self.base = base
        self.key = key
        self.client = sdk.Nimble(api_key=key, base_url=base, max_retries=0,
                                 _strict_response_validation=True)
        self.lenient = sdk.Nimble(api_key=key, base_url=base, max_retries=0)
        self.results = []

    def ok(self, name, error=None):
        self.results.append((name, error))

    def call(self, name, model, fn):
        """Runs `fn(client)`, which returns a raw response, and validates its JSON against
        `model` (a model or a type alias; None to skip the raw check)."""
        try:
            raw = fn(self.client)
            body = raw.http_response.json()
            if model is not None:
                pydantic.TypeAdapter(model).validate_json(raw.http_response.text, strict=True)
            raw.parse()  # the SDK's own strict response validation
            self.ok(name)
            return body
        except Exception as e:  # noqa: BLE001 - every failure is reported, none stops the suite
            self.ok(name, f"{type(e).__name__}: {e}")
            return None

    def expect_error(self, name, exc, fn):
        """Runs `fn(lenient)`, which must raise the SDK's exception class `exc`."""
        try:
            fn(self.lenient)
            self.ok(name, f"no error; expected {exc.__name__}")
        except exc as e:
            body = getattr(e, "body", None)
            good = isinstance(body, dict) and (isinstance(body.get("error"), dict) or "msg" in body)
            self.ok(name, None if good else f"{exc.__name__} without a JSON error body: {body!r}")
        except Exception as e:  # noqa: BLE001
            self.ok(name, f"{type(e).__name__} instead of {exc.__name__}: {e}")

    def fixtures(self, directory, modules):
        """Validates every `<ModelName>.<case>.json` in `directory` against the model of that
        name, looked up in `modules` in order, so the Rust runtime's tests decode bodies the
        vendor's models accept."""
        for path in sorted(pathlib.Path(directory).glob("*.json")):
            name = path.name.split(".")[0]
            model = next((getattr(m, name) for m in modules if hasattr(m, name)), None)
            if model is None:
                self.ok(f"fixture {path.name}", "names no model of the SDK's types")
                continue
            try:
                pydantic.TypeAdapter(model).validate_json(path.read_text(), strict=True)
                self.ok(f"fixture {path.name}")
            except Exception as e:  # noqa: BLE001
                self.ok(f"fixture {path.name}", f"{type(e).__name__}: {e}")

    def finish(self, label):
        failed = [(n, e) for n, e in self.results if e]
        for name, err in self.results:
            print(("FAIL " if err else "ok   ") + name)
            if err:
                print("     " + err.replace("\n", "\n     ")[:3000])
        print(f"conformance {label}: {len(self.results) - len(failed)} passed, {len(failed)} failed")
        sys.exit(1 if failed else 0)
