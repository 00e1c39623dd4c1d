"""Schemathesis against the OpenAPI description, over HTTP, on the local stack's front.

The description is the one the front serves at /v1/openapi.json (generated from the resolver;
docs/openapi.json is the same, a unit test keeps them equal). Every operation is called with
schema-conforming and with schema-breaking data (Hypothesis, bounded examples) and a valid dev
token for one user; every response must be no 5xx and must conform to the description:
documented status code, content type, headers and body schema, and invalid data must be refused
with a 4xx.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

import pytest
import schemathesis
from bench.load import live_stack
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.specs.openapi.checks import unsupported_method

from tests.fakes.fake_openai import FakeOpenAI

pytestmark = [pytest.mark.xdist_group("ltm_live_schemathesis"), pytest.mark.slow]

MAX_EXAMPLES = 100

# A message's `at` is documented as "from 1900-01-01 to one day after the server's clock" (a range
# JSON Schema cannot state for a string): schema-valid data stays inside it, so a year-3860 time
# is not taken for a valid request the API wrongly refused (the refusal of one outside it is
# tested in tests/integration/test_fragment_intake.py).
_OFFSETS = [UTC, timezone(timedelta(hours=3)), timezone(timedelta(hours=-6, minutes=-11))]
schemathesis.openapi.format(
    "date-time",
    st.builds(
        lambda moment, offset: moment.replace(tzinfo=UTC).astimezone(offset).isoformat(),
        st.datetimes(min_value=datetime(1900, 1, 2), max_value=datetime.now() - timedelta(days=1)),
        st.sampled_from(_OFFSETS),
    ),
)


def _spec() -> dict:
    from health_ltm.handlers.api_app import openapi_json

    return json.loads(openapi_json())


# 413 is a documented answer both to schema-breaking bodies that are also too large and to
# schema-valid ones over the deployment's limits (LTM_MAX_MESSAGES / LTM_MAX_MESSAGE_CHARS, which
# the spec's maxLength cannot know): a rejection either way, never an acceptance.
CONFIG = schemathesis.Config.from_dict(
    {
        "checks": {
            "negative_data_rejection": {
                "expected-statuses": [
                    "400",
                    "401",
                    "403",
                    "404",
                    "405",
                    "406",
                    "409",
                    "413",
                    "415",
                    "422",
                    "428",
                    "429",
                ],
            },
            "positive_data_acceptance": {
                "expected-statuses": ["2xx", "401", "403", "404", "409", "412", "413", "429"],
            },
        }
    }
)
schema = schemathesis.openapi.from_dict(_spec(), config=CONFIG)


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    # A configured model (the fake, answering honestly): without one, POST /v1/chat answers its
    # documented 503, which is a deployment state, not a bug this run is looking for.
    with FakeOpenAI(rules=True) as fake:
        env = {
            "OPENAI_API_KEY": "sk-fake",
            "OPENAI_BASE_URL": fake.base_url,
            "POWERTOOLS_LOG_LEVEL": "WARNING",
            # one fuzz user makes hundreds of chat calls: with the per-user limit on, most would be
            # the (documented) 429 and the answering path would hardly be fuzzed; the limit has its
            # own tests (tests/integration/test_chat_rate_limit.py)
            "LTM_CHAT_RATE_PER_MINUTE": "0",
        }
        with live_stack(tmp_path_factory.mktemp("schemathesis") / "ltm", env=env) as live:
            client = live.client("fuzz-user")
            client.say("У меня аллергия на арахис", fragment_id="fuzz-known-fragment")
            yield live


_TOKEN: dict[str, str] = {}


@schema.auth(refresh_interval=None)  # read at every call: the stack (and its key) starts later
class DevToken:
    """The dev JWT of one user, known to Schemathesis as THE authentication: it sends it on every
    case, leaves it out only for its own auth checks, and never counts it as part of a negation."""

    def get(self, case, ctx) -> str:
        return _TOKEN.get("value", "no-stack-yet")

    def set(self, case, data: str, ctx) -> None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


@pytest.fixture(scope="module")
def auth(live):
    _TOKEN["value"] = live.token("fuzz-user")
    yield
    _TOKEN.clear()


def test_the_served_description_is_the_generated_one(live):
    client = live.client()
    status, served = client.call("GET", "/v1/openapi.json")
    assert status == 200 and served == _spec()


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
    database=None,
)
def test_api_conforms_and_never_answers_5xx(case, live, auth):
    response = case.call(base_url=live.url, timeout=30)
    assert response.status_code < 500, (case.method, case.path, response.status_code)
    excluded = []
    public_get = case.path == "/v1/health"
    if public_get and case.method.upper() not in ("GET", "HEAD") and response.status_code == 401:
        # Only GET of a public route skips the authorizer; any other method meets it first, so an
        # undeclared method without a token is 401 before it could be 405 (as in API Gateway).
        excluded.append(unsupported_method)
    case.validate_response(response, excluded_checks=excluded)
