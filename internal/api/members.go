package api

// eachMember calls f with the key and the raw text of the value of each
// member of obj, a valid JSON object, in order, until f returns false.
// Unlike gjson's ForEach it unescapes nothing: gjson makes an unescaped
// copy of every string value it hands out, and a message's content is
// most of a chat body, escapes included ("\n"), which made validating a
// body allocate twice its size (issue 18). It returns false, having
// called f for none or some members, when obj is not such an object or a
// key holds an escape: the caller then reads obj with gjson.
func eachMember(obj string, f func(key, raw string) bool) bool {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return true
	}
	for i < len(obj) && obj[i] == '"' {
		end := stringEnd(obj, i)
		if end < 0 {
			return false
		}
		key := obj[i+1 : end-1]
		for j := 0; j < len(key); j++ {
			if key[j] == '\\' {
				return false
			}
		}
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		i = skipSpace(obj, i+1)
		end = valueEnd(obj, i)
		if end < 0 {
			return false
		}
		if !f(key, obj[i:end]) {
			return true
		}
		i = skipSpace(obj, end)
		switch {
		case i < len(obj) && obj[i] == '}':
			return true
		case i < len(obj) && obj[i] == ',':
			i = skipSpace(obj, i+1)
		default:
			return false
		}
	}
	return false
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string starting at s[i], a
// quote, or -1 when it does not end.
func stringEnd(s string, i int) int {
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// valueEnd returns the index just past the value starting at s[i], or -1
// when it does not end.
func valueEnd(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	switch s[i] {
	case '"':
		return stringEnd(s, i)
	case '{', '[':
		depth := 0
		for ; i < len(s); i++ {
			switch s[i] {
			case '"':
				if i = stringEnd(s, i); i < 0 {
					return -1
				}
				i--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	start := i
	for i < len(s) && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' {
		i++
	}
	if i == start {
		return -1
	}
	return i
}
