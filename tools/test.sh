#!/usr/bin/env bash
# The README's test command: install what the tests need (Python packages, the
# compiled core, Debian's chromium for the report test), then run the whole suite.
# With Perfetto's trace_processor_shell in ../shared/bin (CI, developers'
# machines) the trace_processor engine's tests, engine parity and the SQL
# package run for real against it; elsewhere (a user's clone) they skip and
# say why. An ARTSCOPE_TP_BIN already set wins.
set -euo pipefail
cd "$(dirname "$0")/.."
# cluster: the Dask backend's tests (tests/cluster/test_cluster.py) run a LocalCluster.
# The install builds the compiled core (engine-core/, maturin + cargo; crates
# from crates.io): minutes the first time, seconds when nothing changed.
echo "installing artscope and building its compiled core (cargo, release profile)" >&2
python3 -m pip install -q -e '.[test,cluster]'
python3 -c 'import artscope._core' || { echo "compiled core missing (pip install builds it)" >&2; exit 1; }
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
      || echo "warning: could not install chromium; the browser test will skip" >&2
  fi
fi
shared_tp="$(pwd)/../shared/bin/trace_processor_shell"
if [ -z "${ARTSCOPE_TP_BIN:-}" ] && [ -x "$shared_tp" ]; then
  export ARTSCOPE_TP_BIN="$shared_tp"
fi
echo "trace_processor for the tests: ${ARTSCOPE_TP_BIN:-none (those tests skip)}" >&2
# The core's own unit tests (the event order merge, metadata, ...): the same
# release profile and target directory as the install, so only the test
# harness is compiled (about a minute).
(cd engine-core && PYO3_PYTHON="$(command -v python3)" cargo test --release -q)
exec python3 -m pytest -q "$@"
