"""The companion on the home network: the phone view (pages, JSON API, live
updates), its pairing code, the mDNS announcement. ``server`` serves any
``routing.Router`` (the café hub's too) over HTTP/1.1 on background threads.

May import: core, words, review, appliance.config; never another output.
"""
