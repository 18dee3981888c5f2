#!/bin/sh
# usage: consumer_test.sh MODE SOURCE_DIR BUILD_DIR WORK_DIR C_COMPILER
#   install          install BUILD_DIR into WORK_DIR/prefix (fixture for the others)
#   find_package     configure, build and run app/ against the installed package
#   add_subdirectory configure, build and run app/ vendoring SOURCE_DIR
#   pkg-config       compile app/main.c with the flags of the installed mpitev.pc
set -eu
mode=$1 src=$2 bld=$3 work=$4 cc=$5
app=$src/tests/consumers/app
prefix=$work/prefix
case $mode in
install)
  rm -rf "$prefix"
  cmake --install "$bld" --prefix "$prefix" >/dev/null
  test -f "$prefix/include/mpitev/mpitev.h"
  ;;
find_package)
  rm -rf "$work/fp" && mkdir -p "$work/fp"
  cmake -S "$app" -B "$work/fp" -DCMAKE_C_COMPILER="$cc" -DMPITEV_VIA=find_package -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$work/fp" >/dev/null
  "$work/fp/consumer"
  ;;
add_subdirectory)
  rm -rf "$work/as" && mkdir -p "$work/as"
  cmake -S "$app" -B "$work/as" -DCMAKE_C_COMPILER="$cc" -DMPITEV_VIA=add_subdirectory -DMPITEV_SOURCE_DIR="$src" >/dev/null
  cmake --build "$work/as" >/dev/null
  "$work/as/consumer"
  ;;
pkg-config)
  pc=$(find "$prefix" -name mpitev.pc | head -n 1)
  test -n "$pc"
  flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs mpitev)
  # shellcheck disable=SC2086
  "$cc" -Wall -Wextra -Wpedantic -Werror "$app/main.c" $flags -o "$work/pc_consumer"
  "$work/pc_consumer"
  ;;
*) echo "unknown mode $mode" >&2; exit 2 ;;
esac
