#!/bin/sh
# One command from a fresh Raspberry Pi OS (Trixie or Bookworm, Lite or desktop, 64- or 32-bit) to a
# running Coffee Rush companion:
#
#     sudo ./install.sh                 install, or upgrade in place (run it again any time)
#     sudo ./install.sh --no-start      everything but starting the service
#     sudo ./install.sh --uninstall     remove the service, the program and the udev rule
#                                       (your journal and config are kept; it says where)
#
# What it does, in order (each step prints a line): apt packages (a compiler only when a Pi
# library has no wheel for this machine), the `coffee` service user in the groups that exist
# here, the program in a venv at /opt/coffee-companion/venv on Debian's python3-pygame,
# /etc/coffee-companion/config.toml (kept if you already have one), udev rules (the scanner,
# the GPIO chips for the gpio group),
# SPI for the LED strip in config.txt, the systemd unit, then it starts the service.
# Then: `coffee-companion doctor` says what is still missing.
set -eu

PREFIX=/opt/coffee-companion
VENV=$PREFIX/venv
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
for arg in "$@"; do
    case $arg in
        --uninstall) ACTION=uninstall ;;
        --no-start) START=no ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
    rm -f "$UNIT" && say "removed the service $UNIT"
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

# --- the program ----------------------------------------------------------------------------
mkdir -p "$PREFIX"
PY=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
[ "$PY" = "$PY_WANTED" ] \
    || die "python3 is $PY here; $RELEASE's is $PY_WANTED, the one the companion is checked with"
# a venv made by the release before (bookworm's 3.11 after an upgrade to trixie) has lost its
# Python: made again on this one
VENV_PY=$("$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null \
    || echo none)
if [ -d "$VENV" ] && [ "$VENV_PY" != "$PY" ]; then
    say "venv $VENV was made on Python $VENV_PY: made again on $PY"
    rm -rf "$VENV"
fi
if [ ! -x "$VENV/bin/python" ]; then
    say "venv $VENV (sees Debian's python3-pygame: its SDL draws on the console with kmsdrm)"
    python3 -m venv --system-site-packages "$VENV"
else
    say "venv $VENV already there: upgrading in place"
fi
PIP="$VENV/bin/pip --disable-pip-version-check -q"
# the same pins build and run on both releases' Pythons (3.11 and 3.13): one file
CONSTRAINTS=$SRC/constraints/pi.txt
# A Pi library without a wheel for this machine (rpi-ws281x on arm64) builds from source:
# only then the compiler and Python headers are installed.
if [ "$EXTRA" = pi5 ]; then NATIVE="lgpio"; else NATIVE="rpi-ws281x lgpio"; fi
case $ARCH in
    aarch64|armv7l|armv6l)
        WHEELS=$(mktemp -d)
        # shellcheck disable=SC2086
        if ! $PIP download --only-binary=:all: --no-deps -c "$CONSTRAINTS" -d "$WHEELS" $NATIVE \
                >/dev/null 2>&1; then
            say "no ready-made wheel for $NATIVE on $ARCH: installing gcc, python3-dev, swig, liblgpio-dev to build it"
            apt-get install -y -qq --no-install-recommends gcc libc6-dev python3-dev swig \
                >/dev/null
            apt-get install -y -qq --no-install-recommends liblgpio-dev >/dev/null 2>&1 || true
        fi
        rm -rf "$WHEELS"
        TARGET="$SRC[$EXTRA]" ;;
    *) TARGET="$SRC" ;;   # a PC: no Pi libraries (simulated buttons and lights)
esac
say "installing coffee-rush-companion from $SRC ($EXTRA extras pinned by constraints/pi.txt, checked on $RELEASE's Python $PY)"
$PIP install --upgrade -c "$CONSTRAINTS" "$TARGET"
ln -sf "$VENV/bin/coffee-companion" /usr/local/bin/coffee-companion
cp "$SRC/README.md" "$PREFIX/README.md"
say "installed $("$VENV/bin/coffee-companion" --version)"
# the parsed language files, kept beside the byte code now: the service's user cannot write
# there, and without them each start parses them again
PYTHONDONTWRITEBYTECODE= "$VENV/bin/python" -m companion.words.i18n \
    || say "could not keep the parsed language files (each start parses them: slower, not wrong)"

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

# Debian's default target is graphical.target even with no desktop installed: only a display
# manager holds the screen
if systemd_up && [ "$(systemctl get-default)" = graphical.target ] \
        && systemctl cat display-manager.service >/dev/null 2>&1; then
    say "a desktop starts at boot and would hold the screen: for the companion to own it,"
    say "    sudo systemctl set-default multi-user.target && sudo reboot"
fi
say "done. Check it: coffee-companion doctor   (and: journalctl -u coffee-companion -f)"
[ "$REBOOT" = no ] || say "reboot now for SPI (the LED strip): sudo reboot"
