#!/bin/sh
# Runs inside the debootstrapped guest root (chroot) once, when the cached image is built:
# what a fresh Raspberry Pi OS Lite has that a bare Debian does not, and the test's own
# stand-ins (gpio-sim for the Pi's GPIO header). Part of .ci/check-appliance-vm.
set -eu
KVER=$1
echo raspberrypi > /etc/hostname          # a fresh Pi's name: install.sh renames it
printf '127.0.0.1\tlocalhost\n127.0.1.1\traspberrypi\n' > /etc/hosts
echo '/dev/vda / ext4 defaults,errors=remount-ro 0 1' > /etc/fstab
# the network by DHCP from qemu's user networking; nothing waits for it
mkdir -p /etc/systemd/network
printf '[Match]\nName=e*\n\n[Network]\nDHCP=yes\n' > /etc/systemd/network/20-wired.network
systemctl enable systemd-networkd.service >/dev/null 2>&1
rm -f /etc/resolv.conf; echo 'nameserver 10.0.2.3' > /etc/resolv.conf
mkdir -p /var/log/journal                 # the journal kept across power cuts, as evidence
# the user a Pi comes with, allowed sudo
id pi >/dev/null 2>&1 || useradd -m -s /bin/bash -G sudo pi
echo 'pi ALL=(ALL) NOPASSWD:ALL' > /etc/sudoers.d/pi && chmod 0440 /etc/sudoers.d/pi
# what Raspberry Pi OS adds to Debian and install.sh relies on
for g in gpio spi i2c; do groupadd -f --system "$g"; done
mkdir -p /boot/firmware
printf '# Raspberry Pi OS config.txt (test copy)\ndtparam=audio=on\n' > /boot/firmware/config.txt
# this host's extra CA certificates (a TLS-inspecting proxy), for apt and pip in the guest
update-ca-certificates >/dev/null 2>&1 || true
printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' > /etc/pip.conf
# gpio-sim: the kernel's simulated GPIO chip. Where the kernel lacks it (Debian 12's), it is
# built out of tree (the source put in /usr/src/gpio-sim), with irq_sim (not built into that
# kernel either) in the same module
if [ -d /usr/src/gpio-sim ]; then
    make -s -C "/usr/src/linux-headers-$KVER" M=/usr/src/gpio-sim modules
    install -D -m 0644 /usr/src/gpio-sim/gpio-sim.ko "/lib/modules/$KVER/updates/gpio-sim.ko"
    depmod "$KVER"
fi
systemctl enable coffee-vm-gpiosim.service >/dev/null 2>&1
# lean boot: nothing here needs these timers
systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer \
    man-db.timer >/dev/null 2>&1 || true
apt-get clean
