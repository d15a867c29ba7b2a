#!/usr/bin/env bash
# Runs Python with JAX (CPU) from a virtual environment of its own, made on
# first use: tools/jax_env.sh SCRIPT.py ARGS... Only tools/ and bench/ need
# it; shardc, its tests and CI never do.
#   SHARDC_JAX_VENV  where the environment lives (default ~/.cache/shardc/jax-venv)
#   SHARDC_JAX_VERSION  the jax release to install (default 0.10.2)
set -euo pipefail
venv=${SHARDC_JAX_VENV:-$HOME/.cache/shardc/jax-venv}
version=${SHARDC_JAX_VERSION:-0.10.2}
if ! "$venv/bin/python" -c "import jax" 2>/dev/null; then
  echo "jax_env.sh: installing jax==$version into $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "jax==$version" numpy
fi
exec "$venv/bin/python" "$@"
