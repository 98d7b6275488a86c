"""The words for people in five languages (en, es, pt, it, ko): i18n + locales/*.toml, and
the type faces that draw them (fonts.py: Latin and Hangul, for the screen and the summary).
Every output, the loop's log and the café say things through it.
May import: core.rules (names of editions, rejection codes), appliance.config only.
"""
