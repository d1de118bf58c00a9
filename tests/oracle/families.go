package main

import "encoding/json"

// A family answers one kind of case with Karpenter's own code; each registers itself in init().
type family func(json.RawMessage) (any, error)

var families = map[string]family{}

func register(name string, f family) { families[name] = f }
