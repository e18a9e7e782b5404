package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// itemList is the body of GET /v1/responses/{id}/input_items.
type itemList struct {
	Object  string            `json:"object"`
	Data    []json.RawMessage `json:"data"`
	FirstID *string           `json:"first_id"`
	LastID  *string           `json:"last_id"`
	HasMore bool              `json:"has_more"`
}

// textPart is a message's text content part.
type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// listQuery is the paging of an item list: limit 1–100 (default 20),
// order asc or desc (default desc, newest first), after an item's ID.
type listQuery struct {
	limit int
	desc  bool
	after string
}

func parseListQuery(r *http.Request) (listQuery, *Error) {
	q := r.URL.Query()
	lq := listQuery{limit: 20, desc: true, after: q.Get("after")}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return lq, badRequest("limit", "invalid_value", "Invalid value for 'limit': expected an integer from 1 to 100, got '"+v+"'.")
		}
		lq.limit = n
	}
	switch v := q.Get("order"); v {
	case "", "desc":
	case "asc":
		lq.desc = false
	default:
		return lq, badRequest("order", "invalid_value", "Invalid value for 'order': expected 'asc' or 'desc', got '"+v+"'.")
	}
	return lq, nil
}

// listInputItems lists the items of the whole context a stored response
// was made from (its chain's items, then its own input), in pages.
func (h *Handler) listInputItems(w http.ResponseWriter, r *http.Request) {
	lq, e := parseListQuery(r)
	if e != nil {
		WriteError(w, e)
		return
	}
	sr, ok := h.storedResponse(w, r)
	if !ok {
		return
	}
	all, err := items(sr.InputItems)
	if err != nil {
		WriteError(w, h.storeError(r, err, nil))
		return
	}
	listed(all, sr.ID)
	if lq.desc {
		slices.Reverse(all)
	}
	if lq.after != "" {
		i := slices.IndexFunc(all, func(it json.RawMessage) bool { return gjson.GetBytes(it, "id").Str == lq.after })
		if i < 0 {
			WriteError(w, badRequest("after", "invalid_value", "Invalid value for 'after': no input item of this response has the id '"+lq.after+"'."))
			return
		}
		all = all[i+1:]
	}
	list := itemList{Object: "list", Data: all[:min(lq.limit, len(all))], HasMore: len(all) > lq.limit}
	if n := len(list.Data); n > 0 {
		first, last := gjson.GetBytes(list.Data[0], "id").Str, gjson.GetBytes(list.Data[n-1], "id").Str
		list.FirstID, list.LastID = &first, &last
	}
	writeJSON(w, http.StatusOK, list)
}

// listed readies items for a list, as OpenAI lists them: a message whose
// content is a string gets it as one text part, and every item without
// an "id" gets one that stays the same for each read of the response
// (clients page with them).
func listed(l []json.RawMessage, responseID string) {
	base := "item_" + strings.TrimPrefix(responseID, "resp_") + "_"
	for i, it := range l {
		x := gjson.ParseBytes(it)
		if c := x.Get("content"); x.Get("type").Str == "message" && c.Type == gjson.String {
			part := "input_text"
			if x.Get("role").Str == "assistant" {
				part = "output_text"
			}
			if b, err := sjson.SetBytes(it, "content", []textPart{{part, c.Str}}); err == nil {
				l[i] = b
			}
		}
		if x.Get("id").Str == "" {
			l[i] = withID(l[i], base+strconv.Itoa(i))
		}
	}
}

// withID returns the object it with "id": id as its first member, where
// the API's objects have it.
func withID(it json.RawMessage, id string) json.RawMessage {
	rest := bytes.TrimLeft(it, " \t\r\n")
	if len(rest) == 0 || rest[0] != '{' {
		return it
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	q, _ := json.Marshal(id)
	b := append(append([]byte(`{"id":`), q...), ',')
	if len(rest) > 0 && rest[0] == '}' {
		b = b[:len(b)-1]
	}
	return append(b, rest...)
}
