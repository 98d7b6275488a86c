#!/bin/sh
# One command from a fresh Raspberry Pi OS (Trixie or Bookworm, Lite or desktop, 64- or 32-bit) to a
# running Coffee Rush companion:
#
#     sudo ./install.sh                 install, or upgrade in place (run it again any time)
#     sudo ./install.sh --no-start      everything but starting the service
#     sudo ./install.sh --uninstall     remove the service, the program and the udev rule
#                                       (your journal and config are kept; it says where)
#     sudo ./install.sh --read-only-root  also make the root file system read-only (an
#                                       overlay in RAM; the journal and settings stay on
#                                       the card): see docs/updates.md
#
# What it does, in order (each step prints a line): apt packages (a compiler only when a Pi
# library has no wheel for this machine), the `coffee` service user in the groups that exist
# here, the program as a release of its own, /opt/coffee-companion/releases/<version> with its
# venv on Debian's python3-pygame, `current` pointing at it (today's one venv is migrated),
# /etc/coffee-companion/config.toml (kept if you already have one), udev rules (the scanner,
# the GPIO chips for the gpio group),
# SPI for the LED strip in config.txt, the systemd unit, then it starts the service.
# Then: `coffee-companion doctor` says what is still missing.
set -eu

PREFIX=/opt/coffee-companion
VENV=$PREFIX/current/venv   # releases side by side: install_release below
ETC=/etc/coffee-companion
STATE=/var/lib/coffee-companion
UNIT=/etc/systemd/system/coffee-companion.service
RULE=/etc/udev/rules.d/99-coffee-scanner.rules
GPIO_RULE=/etc/udev/rules.d/99-coffee-gpio.rules
USER_NAME=coffee
GROUPS_WANTED="gpio spi dialout video render input audio"
SRC=$(cd "$(dirname "$0")" && pwd)
MARK="# coffee-companion: LED strip on SPI (install.sh)"

say() { printf '\033[1m==>\033[0m %s\n' "$*"; }
die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

START=yes
ACTION=install
READ_ONLY_ROOT=no
for arg in "$@"; do
    case $arg in
        --uninstall) ACTION=uninstall ;;
        --no-start) START=no ;;
        --read-only-root) READ_ONLY_ROOT=yes ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $arg (try --help)" ;;
    esac
done

[ "$(id -u)" = 0 ] || die "run it as root: sudo $0 $*"

# systemd is PID 1 on a real Pi; in a chroot (the arm64 check) units are enabled, not started
systemd_up() { [ -d /run/systemd/system ]; }

uninstall() {
    if systemd_up; then
        systemctl disable --now coffee-companion.service 2>/dev/null || true
    else
        systemctl disable coffee-companion.service 2>/dev/null || true
    fi
    systemctl disable coffee-companion-update.path coffee-companion-persist.service \
        2>/dev/null || true
    rm -f /etc/systemd/system/coffee-companion-update.path \
        /etc/systemd/system/coffee-companion-update.service \
        /etc/systemd/system/coffee-companion-persist.service \
        /etc/systemd/journald.conf.d/coffee-companion.conf \
        /etc/modules-load.d/coffee-companion.conf
    rm -f "$UNIT" && say "removed the service $UNIT (and the log's RAM setting)"
    systemd_up && systemctl daemon-reload
    rm -f "$RULE" "$GPIO_RULE" && say "removed the udev rules $RULE and $GPIO_RULE"
    command -v udevadm >/dev/null && udevadm control --reload 2>/dev/null || true
    rm -rf "$PREFIX" && say "removed the program $PREFIX"
    rm -f /usr/local/bin/coffee-companion
    say "kept your games in $STATE and your settings in $ETC (delete them yourself if you want)"
    say "kept the user $USER_NAME and the SPI lines in config.txt"
    sync        # on the card before we say done (see the service section)
}

if [ "$ACTION" = uninstall ]; then
    uninstall
    exit 0
fi

# --- what machine is this -----------------------------------------------------------------
# Raspberry Pi OS is Debian with the Pi's additions: both say their release in os-release.
# The two releases this is made and checked for (.ci/check-arm64-install and
# .ci/check-appliance-vm, --release trixie|bookworm), with the Python each ships:
SUPPORTED="Raspberry Pi OS or Debian 13 trixie (Python 3.13, first) or 12 bookworm (Python 3.11)"
. /etc/os-release
RELEASE=${VERSION_CODENAME:-unknown}
case $RELEASE in
    trixie) PY_WANTED=3.13 ;;
    bookworm) PY_WANTED=3.11 ;;
    *) die "this is ${PRETTY_NAME:-an unknown system} ($RELEASE); install.sh supports $SUPPORTED. Elsewhere, run the companion from a venv as the README's first section says." ;;
esac
ARCH=$(uname -m)
case $ARCH in
    aarch64|armv7l|armv6l|x86_64) ;;
    *) die "this machine is $ARCH; the companion supports Raspberry Pi (aarch64, armv7l, armv6l) and x86_64" ;;
esac
MODEL=$(tr -d '\0' 2>/dev/null < /proc/device-tree/model || echo "not a Raspberry Pi")
say "installing on $MODEL ($ARCH, ${PRETTY_NAME:-unknown}, $RELEASE)"
case $MODEL in
    "Raspberry Pi 5"*) EXTRA=pi5 ;;
    *) EXTRA=pi ;;
esac

# --- apt ----------------------------------------------------------------------------------
# EGL (libegl1), GBM (libgbm1), the GL ES library SDL loads with them (libgles2) and Mesa's
# DRI drivers (libgl1-mesa-dri): SDL's kmsdrm opens the screen through EGL on GBM, and without
# any one of them it fails with "EGL not initialized". Without libGL (libgl1) it opens, says
# nothing, and every frame stays black. (Both found by .ci/check-appliance-vm; a Raspberry
# Pi OS Lite image is not sure to have them.)
# avahi-daemon answers <hostname>.local and announces the phone view (avahi-publish-service,
# from avahi-utils): the service holds no mDNS responder of its own (issue 19's memory).
APT="python3 python3-venv python3-pip python3-pygame fonts-dejavu-core fonts-nanum fontconfig
     espeak-ng alsa-utils udev avahi-daemon avahi-utils ca-certificates libegl1 libgbm1 libgles2
     libgl1 libgl1-mesa-dri"
say "apt packages: $(echo $APT | tr '\n' ' ')"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $APT >/dev/null

# --- the program: a release of its own, beside the others (docs/updates.md) ------------------
# /opt/coffee-companion/releases/<version>/{src,venv}, `current` -> the running one, `previous`
# -> the one before (kept for `coffee-companion update --rollback`). A release is complete once
# its .complete is on the card; `current` moves by rename (atomic). Today's layout (one venv
# in /opt/coffee-companion/venv) is migrated: the new release is built beside it, `current`
# switched to it, then the old venv removed. Games (/var/lib) and settings (/etc) stay put.
release_name() {
    VER=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$SRC/companion/__init__.py")
    [ -n "$VER" ] || die "$SRC is not a coffee-companion source tree"
    # git as the clone's owner: git refuses root in someone else's repository
    OWNER=$(stat -c %U "$SRC")
    if [ "$OWNER" = root ]; then GIT="git -C $SRC"; else GIT="runuser -u $OWNER -- git -C $SRC"; fi
    if command -v git >/dev/null && $GIT rev-parse --git-dir >/dev/null 2>&1; then
        NAME="$VER-$($GIT rev-parse --short=10 HEAD)"
        # a changed tree is not the commit: a release of its own
        [ -z "$($GIT status --porcelain --untracked-files=no 2>/dev/null)" ] \
            || NAME="$NAME-changed-$(date -u +%Y%m%d%H%M%S)"
        ORIGIN=$($GIT remote get-url origin 2>/dev/null || echo "$SRC")
    else
        NAME="$VER-local-$(date -u +%Y%m%d%H%M%S)"
        ORIGIN=$SRC
    fi
}

switch_link() {     # switch_link current|previous <release>: a new symlink renamed over
    ln -sfn "releases/$2" "$PREFIX/.$1.new"
    mv -T "$PREFIX/.$1.new" "$PREFIX/$1"
}

build_release() {
    REL=$PREFIX/releases/$NAME
    # a release built on the OS release before (bookworm's 3.11 after an upgrade to trixie)
    # has lost its Python: built again on this one
    REL_PY=$("$REL/venv/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' \
        2>/dev/null || echo none)
    if [ -f "$REL/.complete" ] && [ "$REL_PY" = "$PY" ]; then
        say "release $NAME is already built ($REL)"
        return
    fi
    [ ! -f "$REL/.complete" ] || say "release $NAME was built on Python $REL_PY: built again on $PY"
    rm -rf "$REL"
    mkdir -p "$REL/src"
    # the source as it is here, without the clone's history and the developer's venvs
    tar -C "$SRC" --exclude=./.git --exclude='./.venv*' --exclude=./build -cf - . \
        | tar -C "$REL/src" -xf -
    say "venv $REL/venv (sees Debian's python3-pygame: its SDL draws on the console with kmsdrm)"
    python3 -m venv --system-site-packages "$REL/venv"
    PIP="$REL/venv/bin/pip --disable-pip-version-check -q"
    CONSTRAINTS=$REL/src/constraints/pi.txt
    # A Pi library without a wheel for this machine (rpi-ws281x on arm64) builds from source:
    # only then the compiler and Python headers are installed.
    if [ "$EXTRA" = pi5 ]; then NATIVE="lgpio"; else NATIVE="rpi-ws281x lgpio"; fi
    case $ARCH in
        aarch64|armv7l|armv6l)
            WHEELS=$(mktemp -d)
            # shellcheck disable=SC2086
            if ! $PIP download --only-binary=:all: --no-deps -c "$CONSTRAINTS" -d "$WHEELS" \
                    $NATIVE >/dev/null 2>&1; then
                say "no ready-made wheel for $NATIVE on $ARCH: installing gcc, python3-dev, swig to build it"
                apt-get install -y -qq --no-install-recommends gcc libc6-dev python3-dev swig \
                    >/dev/null
            fi
            rm -rf "$WHEELS"
            TARGET="$REL/src[$EXTRA]" ;;
        *) TARGET="$REL/src" ;;   # a PC: no Pi libraries (simulated buttons and lights)
    esac
    say "installing coffee-rush-companion $NAME ($EXTRA extras pinned by constraints/pi.txt, checked on $RELEASE's Python $PY)"
    # the same pins build and run on both releases' Pythons (3.11 and 3.13): one file
    # PYPI=1: lgpio's source builds its C library into the module, as its own wheels are built
    # (it has none for Python 3.13, trixie's): otherwise it links a liblgpio that Debian does
    # not ship ("cannot find -llgpio": .ci/check-appliance-vm --release trixie, 2026-11-28)
    PYPI=1 $PIP install -c "$CONSTRAINTS" "$TARGET"
    # the parsed language files, kept beside the byte code now: the service's user cannot
    # write there, and without them each start parses them again (from /: run in the clone,
    # Python would import the clone's companion, not the venv's)
    (cd / && PYTHONDONTWRITEBYTECODE= "$REL/venv/bin/python" -m companion.words.i18n) \
        || say "could not keep the parsed language files (each start parses them: slower, not wrong)"
    sync                                    # all of it on the card before it is complete
    date -u +%Y-%m-%dT%H:%M:%SZ > "$REL/.complete"
    sync
}

install_release() {
    mkdir -p "$PREFIX/releases"
    PY=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    [ "$PY" = "$PY_WANTED" ] \
        || die "python3 is $PY here; $RELEASE's is $PY_WANTED, the one the companion is checked with"
    case $ARCH in     # the pip extra every release of this machine is built with
        aarch64|armv7l|armv6l) EXTRAS=$EXTRA ;;
        *) EXTRAS="" ;;
    esac
    # `coffee-companion update` fetches with git (a tarball works without)
    command -v git >/dev/null || apt-get install -y -qq --no-install-recommends git >/dev/null
    release_name
    build_release
    printf '%s\n' "$ORIGIN" > "$PREFIX/origin"          # where `coffee-companion update` fetches
    printf '%s\n' "$EXTRAS" > "$PREFIX/extras"
    RUNNING=$(basename "$(readlink "$PREFIX/current" 2>/dev/null || echo none)")
    if [ "$RUNNING" != "$NAME" ]; then
        KEPT=""
        if [ -f "$PREFIX/releases/$RUNNING/.complete" ]; then
            switch_link previous "$RUNNING"
            KEPT=" (previous: $RUNNING, kept for coffee-companion update --rollback)"
        fi
        switch_link current "$NAME"
        sync
        say "current -> releases/$NAME$KEPT"
    fi
    # the releases a failed or cut-off build left, and all but current and previous
    KEEP_CUR=$(basename "$(readlink "$PREFIX/current")")
    KEEP_PREV=$(basename "$(readlink "$PREFIX/previous" 2>/dev/null || echo none)")
    for dir in "$PREFIX"/releases/*; do
        [ -d "$dir" ] || continue
        case $(basename "$dir") in "$KEEP_CUR"|"$KEEP_PREV") continue ;; esac
        rm -rf "$dir"
    done
    ln -sf "$VENV/bin/coffee-companion" /usr/local/bin/coffee-companion
    # the manual on the table, offline (coffee-companion --help and doctor point here): links
    # into the running release, so they follow every update and rollback
    rm -f "$PREFIX/README.md"                           # install.sh's copy of before
    ln -sfn current/src/README.md "$PREFIX/.README.md.new"
    mv -T "$PREFIX/.README.md.new" "$PREFIX/README.md"
    ln -sfn current/src/docs "$PREFIX/.manual.new"
    mv -T "$PREFIX/.manual.new" "$PREFIX/manual"
    say "the manual: $PREFIX/manual/index.md"
    say "installed $("$VENV/bin/coffee-companion" --version)"
}

install_release

# --- the service user -------------------------------------------------------------------------
GROUPS_FOUND=""
for g in $GROUPS_WANTED; do
    getent group "$g" >/dev/null && GROUPS_FOUND="$GROUPS_FOUND${GROUPS_FOUND:+,}$g"
done
if ! id "$USER_NAME" >/dev/null 2>&1; then
    useradd --system --home-dir "$STATE" --no-create-home --shell /usr/sbin/nologin \
        --user-group "$USER_NAME"
    say "created the service user $USER_NAME"
fi
[ -n "$GROUPS_FOUND" ] && usermod -a -G "$GROUPS_FOUND" "$USER_NAME"
say "user $USER_NAME is in: $(id -nG "$USER_NAME" | tr ' ' ',')"
MISSING=""
for g in $GROUPS_WANTED; do
    getent group "$g" >/dev/null || MISSING="$MISSING $g"
done
[ -z "$MISSING" ] || say "groups not on this system (fine off a Pi):$MISSING"
install -d -o "$USER_NAME" -g "$USER_NAME" -m 0750 "$STATE"

# --- config ---------------------------------------------------------------------------------
install -d -m 0755 "$ETC"
if [ -f "$ETC/config.toml" ]; then
    say "kept your $ETC/config.toml (the shipped one is $SRC/systemd/config.toml)"
else
    install -m 0644 "$SRC/systemd/config.toml" "$ETC/config.toml"
    say "wrote $ETC/config.toml"
fi
"$VENV/bin/coffee-companion" --config "$ETC/config.toml" config check \
    || say "warning: fix $ETC/config.toml (the service shows the problem on the screen)"

# --- udev rules: the scanner's name, the GPIO chips for the gpio group ----------------------------
install -m 0644 "$SRC/hardware/99-coffee-scanner.rules" "$RULE"
install -m 0644 "$SRC/hardware/99-coffee-gpio.rules" "$GPIO_RULE"
if udevadm control --reload 2>/dev/null; then
    udevadm trigger --subsystem-match=tty --action=add 2>/dev/null || true
    udevadm trigger --subsystem-match=gpio --action=add 2>/dev/null || true
    say "udev rules $RULE (/dev/coffee-scanner appears with the Pico) and $GPIO_RULE installed and applied"
else
    say "udev rules $RULE and $GPIO_RULE installed (udev is not running here: they apply at the next boot)"
fi

# --- SPI for the LED strip ------------------------------------------------------------------------
REBOOT=no
CONFIG_TXT=""
for f in /boot/firmware/config.txt /boot/config.txt; do
    [ -f "$f" ] && { CONFIG_TXT=$f; break; }
done
if [ -z "$CONFIG_TXT" ]; then
    say "no config.txt (not a Raspberry Pi): SPI left alone"
elif grep -qF "$MARK" "$CONFIG_TXT"; then
    say "SPI already set up in $CONFIG_TXT"
else
    # dtparam=spi=on and enable_uart=1 (locks the core clock) as hardware/leds.md explains;
    # the core clock pinned so the strip's timing does not drift
    case $MODEL in
        "Raspberry Pi 4"*|"Raspberry Pi 400"*) CORE="core_freq=500
core_freq_min=500" ;;
        "Raspberry Pi 5"*) CORE="" ;;
        *) CORE="core_freq=250" ;;
    esac
    cp "$CONFIG_TXT" "$CONFIG_TXT.before-coffee-companion"
    printf '\n%s\n[all]\ndtparam=spi=on\nenable_uart=1\n%s\n' "$MARK" "$CORE" >> "$CONFIG_TXT"
    REBOOT=yes
    say "enabled SPI in $CONFIG_TXT (a copy of the old file is beside it): reboot once"
fi

# --- the name phones open: http://coffee-rush.local -------------------------------------------
# Raspberry Pi OS runs avahi, which answers <hostname>.local. A Pi still named as it came
# (raspberrypi) is renamed coffee-rush; a name you chose is kept, and said.
HOST=$(hostname)
if [ "$HOST" = raspberrypi ] && command -v hostnamectl >/dev/null && systemd_up; then
    hostnamectl set-hostname coffee-rush
    sed -i 's/^\(127\.0\.1\.1[[:space:]]\+\)raspberrypi\b/\1coffee-rush/' /etc/hosts
    HOST=coffee-rush
    say "renamed this Pi coffee-rush (was raspberrypi): phones open http://coffee-rush.local"
else
    say "phones open http://$HOST.local (sudo hostnamectl set-hostname coffee-rush to rename)"
fi
if systemd_up && ! systemctl is-active --quiet avahi-daemon; then
    if systemctl enable --now avahi-daemon >/dev/null 2>&1; then
        say "avahi-daemon started: it answers $HOST.local and announces the phone view"
    else
        say "avahi-daemon did not start: phones cannot find $HOST.local (sudo systemctl status avahi-daemon)"
    fi
fi

# --- updates, logs in RAM, the read-only root (docs/updates.md) ----------------------------
# The touchscreen's Settings -> Update and a paired phone ask for an update by writing
# $STATE/update-requested (the service may not write /opt nor restart itself); the path unit
# sees it and runs `coffee-companion update --requested` as root, niced, beside the table.
install_update_units() {
    install -m 0644 "$SRC/systemd/coffee-companion-update.service" \
        /etc/systemd/system/coffee-companion-update.service
    install -m 0644 "$SRC/systemd/coffee-companion-update.path" \
        /etc/systemd/system/coffee-companion-update.path
    systemctl enable coffee-companion-update.path 2>/dev/null \
        || ln -sf /etc/systemd/system/coffee-companion-update.path \
            /etc/systemd/system/paths.target.wants/coffee-companion-update.path
    say "updates from the touchscreen and paired phones: coffee-companion-update.path"
    # the help report a paired phone downloads carries the service's log: journald lets
    # its readers' group read it (the log is in RAM, this boot's only)
    getent group systemd-journal >/dev/null && usermod -a -G systemd-journal "$USER_NAME"
    return 0
}

# journald keeps the log in RAM (/run), 16 MB at most: an evening's log no longer writes
# the card, and a full log drops its oldest lines. The log does not survive a reboot:
# `coffee-companion report` collects the current boot's.
logs_to_ram() {
    install -d -m 0755 /etc/systemd/journald.conf.d
    printf '%s\n' "# coffee-companion (install.sh): the log in RAM, bounded (docs/updates.md)" \
        "[Journal]" "Storage=volatile" "RuntimeMaxUse=16M" "RuntimeMaxFileSize=4M" \
        > /etc/systemd/journald.conf.d/coffee-companion.conf
    systemd_up && systemctl restart systemd-journald 2>/dev/null || true
    say "the system log lives in RAM (at most 16 MB): /etc/systemd/journald.conf.d/coffee-companion.conf"
}

# --read-only-root: the root file system becomes an overlay in RAM at the next boot (Debian's
# overlayroot; Raspberry Pi OS's raspi-config uses the same package). The card is only read,
# but for the journal and settings: coffee-companion-persist.service bind-mounts their
# folders from the card itself (/media/root-ro, remounted writable) over the overlay.
read_only_root() {
    install -m 0644 "$SRC/systemd/coffee-companion-persist.service" \
        /etc/systemd/system/coffee-companion-persist.service
    systemctl enable coffee-companion-persist.service 2>/dev/null \
        || ln -sf /etc/systemd/system/coffee-companion-persist.service \
            /etc/systemd/system/local-fs.target.wants/coffee-companion-persist.service
    if command -v raspi-config >/dev/null; then
        raspi-config nonint do_overlayfs 0 \
            || die "raspi-config could not turn on the overlay file system"
        say "read-only root: raspi-config's overlay file system is on from the next boot"
    else
        # busybox: overlayroot's script in the initramfs needs grep, which an initramfs
        # without busybox lacks (the appliance check's Trixie guest booted the root as it
        # was: "/scripts/init-bottom/overlayroot: grep: not found")
        apt-get install -y -qq --no-install-recommends overlayroot busybox >/dev/null \
            || die "no overlayroot package here: the root stays writable"
        sed -i 's/^overlayroot=.*/overlayroot="tmpfs:recurse=0"/' /etc/overlayroot.conf
        grep -q '^overlayroot="tmpfs' /etc/overlayroot.conf \
            || echo 'overlayroot="tmpfs:recurse=0"' >> /etc/overlayroot.conf
        update-initramfs -u >/dev/null 2>&1 || say "warning: update-initramfs failed"
        say "read-only root: overlayroot is on from the next boot (/etc/overlayroot.conf)"
    fi
    say "an update or install.sh then needs the root writable again: docs/updates.md says how"
    REBOOT=yes
}

# ALSA's core module loaded early in every boot (systemd-modules-load, before sysinit.target),
# where it is a module: the unit's `DeviceAllow=char-alsa` is looked up in /proc/devices
# when the service starts, and a sound driver that came up after it (a slow boot: the
# appliance check's Trixie guest) left the service no access to any sound card until it
# was restarted ("ALSA: Couldn't open audio device: No such file or directory").
sound_core_first() {
    modinfo snd >/dev/null 2>&1 || return 0         # no ALSA in this kernel at all
    install -d -m 0755 /etc/modules-load.d
    printf '%s\n' "# coffee-companion (install.sh): ALSA's core before the service starts" \
        "# (its DeviceAllow=char-alsa needs the alsa major in /proc/devices)" "snd" \
        > /etc/modules-load.d/coffee-companion.conf
    modprobe snd 2>/dev/null || true
    say "ALSA's core loads early at every boot: /etc/modules-load.d/coffee-companion.conf"
}

install_update_units
logs_to_ram
sound_core_first
[ "$READ_ONLY_ROOT" = no ] || read_only_root

# --- the service ------------------------------------------------------------------------------
install -m 0644 "$SRC/systemd/coffee-companion.service" "$UNIT"
systemctl enable coffee-companion.service 2>/dev/null \
    || ln -sf "$UNIT" /etc/systemd/system/multi-user.target.wants/coffee-companion.service
say "service $UNIT installed and enabled (starts at every boot)"
# A Pi is unplugged at any moment: what this script wrote (the program, the unit, the rules)
# sits in the page cache for up to 30 s, and a power cut then leaves empty files behind (the
# appliance check, run 9: cut 25 s after an upgrade, the unit file came back empty and the
# service never started at the next boot). On the card before the service (re)starts.
sync
if ! systemd_up; then
    say "systemd is not running here (a chroot?): the service starts at the next boot"
elif [ "$START" = no ]; then
    systemctl daemon-reload
    say "not started (--no-start): sudo systemctl start coffee-companion"
else
    systemctl daemon-reload
    systemctl restart coffee-companion.service
    say "service (re)started: $(systemctl is-active coffee-companion.service)"
fi

# today's layout migrated: its one venv goes once the service runs from `current`
finish_migration() {
    if [ -d "$PREFIX/venv" ] && [ ! -L "$PREFIX/venv" ]; then
        rm -rf "$PREFIX/venv"
        sync
        say "migrated: the one venv $PREFIX/venv is gone, releases side by side (games and settings kept)"
    fi
}
finish_migration

# Debian's default target is graphical.target even with no desktop installed: only a display
# manager holds the screen
if systemd_up && [ "$(systemctl get-default)" = graphical.target ] \
        && systemctl cat display-manager.service >/dev/null 2>&1; then
    say "a desktop starts at boot and would hold the screen: for the companion to own it,"
    say "    sudo systemctl set-default multi-user.target && sudo reboot"
fi
say "done. Check it: coffee-companion doctor   (and: journalctl -u coffee-companion -f)"
[ "$REBOOT" = no ] || say "reboot now for SPI (the LED strip): sudo reboot"
