#!/usr/bin/env bash
# What `make bench` needs besides .venv, installed only when missing (the suite itself installs nothing):
# wrk, the load generator, from Debian's packages; kmock, the peer, in its own virtualenv (bench/.kmock-venv)
# so that its dependencies never touch the project's pins. Either may fail: the suite then falls back to its
# Python load generator, or leaves the peer column empty, and says so.
set -u
PYTHON="${1:-python3}"
cd "$(dirname "$0")"

if ! command -v wrk >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        apt-get update -qq && apt-get install -y -qq wrk >/dev/null || echo "bench: wrk not installed"
    else
        echo "bench: wrk missing (apt-get install wrk as root); using the Python load generator"
    fi
fi

if [ ! -x .kmock-venv/bin/python ] || ! .kmock-venv/bin/python -c 'import kmock' 2>/dev/null; then
    "$PYTHON" -m venv .kmock-venv && .kmock-venv/bin/pip install --quiet --disable-pip-version-check 'kmock==0.8' \
        || echo "bench: kmock not installed; the peer column stays empty"
fi
exit 0
