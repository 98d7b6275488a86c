"""The appliance: config, the service that wires inputs -> loop -> outputs, logs, faults.
Owns start-up, shutdown, the systemd notify link, doctor checks and the demo.
May import every room except commands and cafe.
"""
