#!/bin/sh
# coffee-vm-gpiosim.service: one gpio-sim chip (gpiochip0, 54 lines like the Pi's BCM
# header, all pulled up as a button at rest), then a Pi's revision line for gpiozero
# (an x86 guest has none in /proc/cpuinfo; the service's drop-in binds this copy there).
set -eu
modprobe gpio-sim
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
d=/sys/kernel/config/gpio-sim/pi
if [ ! -d "$d" ]; then
    mkdir "$d" "$d/bank0"
    echo 54 > "$d/bank0/num_lines"
    echo 1 > "$d/live"
fi
echo "gpio-sim: $(cat "$d/dev_name") $(cat "$d/bank0/chip_name")"
mkdir -p /run/coffee-vm
{ cat /proc/cpuinfo; printf 'Revision\t: c03111\nModel\t\t: Raspberry Pi 4 Model B Rev 1.1 (gpio-sim stand-in)\n'; } \
    > /run/coffee-vm/cpuinfo
