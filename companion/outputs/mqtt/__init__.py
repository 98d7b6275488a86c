"""The table's MQTT output: what a companion tells the café's broker.

``topics`` names the topics and builds the payloads (docs/mqtt.md is their
reference); ``publisher`` is the output adapter that subscribes to the table
loop and publishes through paho-mqtt on its own threads.

May import: core, words, appliance.config; never another output (the café reads its topics).
"""
