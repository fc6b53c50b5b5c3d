"""A/B tests: two environments or executables interleaved, their statistics, and confirm
(A/B of proposed header changes at their consumers); renderers in the *_format modules.
"""
