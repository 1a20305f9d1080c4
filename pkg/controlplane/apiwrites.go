// APIWrites: the API server's write request counters, by verb and resource.

package controlplane

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
)

var (
	requestTotal = regexp.MustCompile(`^apiserver_request_total\{(.*)\} (\S+)$`)
	metricLabel  = regexp.MustCompile(`(\w+)="([^"]*)"`)
)

// APIWrites reads the API server's counters of write requests, keyed
// "VERB resource[/subresource]" (e.g. "PATCH pods/status"). The change
// between two readings is what was written in between, by every client.
func (e *Env) APIWrites(ctx context.Context) (map[string]float64, error) {
	raw, err := e.Client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the API server's metrics: %w", err)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := requestTotal.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		l := map[string]string{}
		for _, kv := range metricLabel.FindAllStringSubmatch(m[1], -1) {
			l[kv[1]] = kv[2]
		}
		switch l["verb"] {
		case "POST", "PUT", "PATCH", "DELETE", "APPLY":
		default:
			continue
		}
		key := l["verb"] + " " + l["resource"]
		if l["subresource"] != "" {
			key += "/" + l["subresource"]
		}
		v, _ := strconv.ParseFloat(m[2], 64)
		out[key] += v
	}
	return out, sc.Err()
}
