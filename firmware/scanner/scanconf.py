"""Wiring and timing of the scanner box. Edit here if you wired it differently.

Pin numbers are GPn numbers (not the physical pin numbers printed on the
board); see firmware/README.md for the wiring table.
"""

# MFRC522 on SPI0
SPI_ID = 0
SPI_BAUDRATE = 1000000     # 1 MHz: robust over 15 cm jumper wires
PIN_SCK = 18               # physical pin 24
PIN_MOSI = 19              # physical pin 25 (SPI0 TX)
PIN_MISO = 16              # physical pin 21 (SPI0 RX)
PIN_CS = 17                # physical pin 22 (MFRC522 "SDA"/SS)
PIN_RST = 20               # physical pin 26

# On-board LED: "LED" works on Pico and Pico W; GP25 is the Pico fallback.
LED_PIN = "LED"
LED_FALLBACK_PIN = 25

# Timing, in milliseconds
POLL_MS = 100              # look for a card ten times a second
HEARTBEAT_MS = 2000        # protocol v2: a HEARTBEAT every 2 s
HEALTH_MS = 1000           # check that the reader still answers
RETRY_MS = 1000            # while it does not, try to re-initialise it this often
RELEASE_MS = 1000          # a card unseen this long counts as lifted
LOOP_IDLE_MS = 10          # pause between loop passes
