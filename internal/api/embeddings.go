package api

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/switchyard-gw/switchyard/internal/catalog"
	"github.com/switchyard-gw/switchyard/internal/gateway"
	"github.com/switchyard-gw/switchyard/internal/provider"
)

func (h *Handler) embeddings(w http.ResponseWriter, r *http.Request) {
	aw := &answer{embeddings: true}
	h.serveModel(w, r, func(body []byte) (*gateway.Request, *Error) {
		req, e := checkEmbedding(body)
		aw.base64 = req.Base64
		return &gateway.Request{Endpoint: provider.EndpointEmbedding, Model: req.Model, Body: body,
			Check: func(m *catalog.Model) error { return checkDimensions(req, m) }}, e
	}, aw)
}

// checkDimensions refuses dimensions the model does not take.
func checkDimensions(req embeddingRequest, m *catalog.Model) error {
	if req.Dimensions > 0 && !variableDimensions(m.ID) {
		return badRequest("dimensions", "unsupported_parameter",
			"The model `"+req.Model+"` does not support the dimensions parameter.")
	}
	if max := m.EmbeddingDims; req.Dimensions > 0 && max > 0 && req.Dimensions > max {
		return invalidValue("dimensions", "expected at most "+strconv.Itoa(max)+" for "+req.Model+".")
	}
	return nil
}

// variableDimensions reports models that accept the dimensions parameter:
// OpenAI's text-embedding-3 generation and later, Gemini's embedding
// models, and the mock.
func variableDimensions(id string) bool {
	return strings.HasPrefix(id, "text-embedding-3") || strings.HasPrefix(id, "gemini-embedding") || id == "mock-embedding"
}

// encodeEmbeddings makes every embedding in an answer use the encoding the
// client asked for: base64 of little-endian float32, or a float array.
func encodeEmbeddings(b []byte, wantBase64 bool) ([]byte, error) {
	for i, d := range gjson.GetBytes(b, "data").Array() {
		emb := d.Get("embedding")
		path := "data." + strconv.Itoa(i) + ".embedding"
		var err error
		switch {
		case wantBase64 && emb.IsArray():
			b, err = sjson.SetBytes(b, path, floatsToBase64(emb))
		case !wantBase64 && emb.Type == gjson.String:
			var raw []byte
			if raw, err = base64ToFloats(emb.Str); err == nil {
				b, err = sjson.SetRawBytes(b, path, raw)
			}
		}
		if err != nil {
			return nil, &provider.Error{Kind: provider.KindUnavailable, Err: err}
		}
	}
	return b, nil
}

func floatsToBase64(arr gjson.Result) string {
	vals := arr.Array()
	buf := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(float32(v.Float())))
	}
	return base64.StdEncoding.EncodeToString(buf)
}

// base64ToFloats decodes a base64 float32 vector into a JSON array.
func base64ToFloats(s string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(raw)%4 != 0 {
		return nil, errors.New("upstream sent an invalid base64 embedding")
	}
	out := make([]byte, 0, len(raw)*3+2)
	out = append(out, '[')
	for i := 0; i < len(raw); i += 4 {
		if i > 0 {
			out = append(out, ',')
		}
		f := math.Float32frombits(binary.LittleEndian.Uint32(raw[i:]))
		out = strconv.AppendFloat(out, float64(f), 'g', -1, 32)
	}
	return append(out, ']'), nil
}
