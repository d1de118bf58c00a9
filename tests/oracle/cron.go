package main

import (
	"encoding/json"
	"time"

	"github.com/robfig/cron/v3"
)

type cronCase struct {
	Schedule string    `json:"schedule"`
	From     time.Time `json:"from"`
	Until    time.Time `json:"until"`
	Count    int       `json:"count"`
}

// cronFamily: a budget schedule as Budget.IsActive (pkg/apis/v1/nodepool.go) reads it, cron.ParseStandard of
// "TZ=UTC " + schedule, and the schedule's next starts after From (SpecSchedule.Next, repeated), those before Until.
func cronFamily(raw json.RawMessage) (any, error) {
	var c cronCase
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	schedule, err := cron.ParseStandard("TZ=UTC " + c.Schedule)
	if err != nil {
		return map[string]any{"parses": false}, nil
	}
	next := []string{}
	t := c.From.UTC()
	for len(next) < c.Count {
		t = schedule.Next(t)
		if t.IsZero() || !t.Before(c.Until) {
			break
		}
		next = append(next, t.UTC().Format(time.RFC3339))
	}
	return map[string]any{"parses": true, "next": next}, nil
}

func init() { register("cron", cronFamily) }
