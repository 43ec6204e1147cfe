#!/bin/sh
# Entry point of the redis stand-in image (Debian's redis-server). The official image's server is
# built with protected mode off, so that other containers may connect without a password; Debian's
# is not, so it is turned off here, before any argument the compose file gives (a later one wins).
set -e
if [ "${1#-}" != "$1" ]; then set -- redis-server "$@"; fi
if [ "$1" = redis-server ]; then
  shift
  set -- redis-server --protected-mode no "$@"
fi
exec "$@"
