// The oracle: JSON cases on stdin, one per line ({"id", "family", "case"}), answered with the upstream
// Karpenter v1.14.1 and AWS provider v1.14.1 code, one line per case on stdout ({"id", "answer", "error"}).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

type request struct {
	ID     string          `json:"id"`
	Family string          `json:"family"`
	Case   json.RawMessage `json:"case"`
}

type response struct {
	ID     string `json:"id"`
	Answer any    `json:"answer"`
	Error  string `json:"error,omitempty"`
}

func answer(line []byte) (res response) {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return response{Error: "malformed line: " + err.Error()}
	}
	res.ID = req.ID
	f, ok := families[req.Family]
	if !ok {
		res.Error = fmt.Sprintf("unknown family %q", req.Family)
		return res
	}
	defer func() {
		if p := recover(); p != nil {
			res.Answer, res.Error = nil, fmt.Sprintf("panic: %v", p)
		}
	}()
	out, err := f(req.Case)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.Answer = out
	return res
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<28)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for in.Scan() {
		if len(in.Bytes()) == 0 {
			continue
		}
		if err := enc.Encode(answer(in.Bytes())); err != nil {
			fmt.Fprintln(os.Stderr, "oracle: write:", err)
			os.Exit(2)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "oracle: read:", err)
		os.Exit(2)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "oracle: write:", err)
		os.Exit(2)
	}
}
