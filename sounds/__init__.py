"""The table's sound cues (WAV), installed as the package ``companion.sounds``.

setup.py maps this top-level folder into the wheel as this package; an editable
install finds it under the same name. tools/make_sounds.py writes the files.
"""
