"""Go and Reasonix compatibility primitives: Go string and time semantics, Reasonix's
decoding, tokenizer, snippets and yaml.v3 scalar emission (byte-exact with the Go code).
"""
