"""The companion on the home network: the phone view (pages, JSON API, live
updates), its pairing code, the mDNS announcement. ``server`` runs any ASGI app
on a background thread.

May import: core, words, review, appliance.config; never another output.
"""
