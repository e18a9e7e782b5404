package fakeanthropic

import (
	"strconv"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// countTokens answers POST /v1/messages/count_tokens: the body of a
// Messages request without max_tokens and stream, checked the same way;
// the count is the input the fake would bill for it (its usage's
// input_tokens plus cache reads).
func (s *Server) countTokens(c *call) {
	if !gjson.ValidBytes(c.body) {
		c.fail(invalid("There was an error parsing the body: invalid JSON"))
		return
	}
	for _, k := range [...]string{"max_tokens", "stream"} {
		if gjson.GetBytes(c.body, k).Exists() {
			c.fail(invalid("%s: Extra inputs are not permitted", k))
			return
		}
	}
	model := gjson.GetBytes(c.body, "model")
	if !model.Exists() {
		c.fail(invalid("model: Field required"))
		return
	}
	limit, ok := maxOutput(model.Str)
	if !ok {
		c.fail(errModel(model.Str))
		return
	}
	body, err := sjson.SetBytes(c.body, "max_tokens", limit) // the most any request may ask
	if err != nil {
		c.fail(invalid("Input should be a valid dictionary"))
		return
	}
	q, err := parse(body)
	if err != nil {
		c.fail(err)
		return
	}
	c.json([]byte(`{"input_tokens":` + strconv.Itoa(q.prompt) + `}`))
}
