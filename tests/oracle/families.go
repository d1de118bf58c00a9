package main

import "encoding/json"

// A family answers one kind of case with Karpenter's own functions. Each family lives in its own
// file and registers itself in init().
type family func(json.RawMessage) (any, error)

var families = map[string]family{}

func register(name string, f family) {
	if _, dup := families[name]; dup {
		panic("family registered twice: " + name)
	}
	families[name] = f
}
