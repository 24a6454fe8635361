package wire

// A line over the limit is discarded, but its start and its end are kept
// (LineReader.Cut), so that a reply too long to take can still fail its
// request at once: its id is among the first members (as most SDKs write
// a response) or the last (as the TypeScript SDK does: result, jsonrpc,
// id). Both ends of a top-level object can be read without the middle.

// cutEnd is how many bytes of each end of a discarded line are kept.
const cutEnd = 4 << 10

// CutReplyID reads the id of a discarded line from its start and end:
// ok when the line is a response (a "result" or "error" member, no
// "method") whose id is in the members that either end holds whole.
func CutReplyID(head, tail []byte) (id []byte, ok bool) {
	var reply, request bool
	see := func(key, v []byte) {
		switch {
		case KeyIs(key, "id") && v != nil:
			id = v
		case KeyIs(key, "result"), KeyIs(key, "error"):
			reply = true
		case KeyIs(key, "method"):
			request = true
		}
	}
	headMembers(head, see)
	tailMembers(tail, see)
	if !reply || request || id == nil {
		return nil, false
	}
	return id, true
}

// CutRequest reports whether a discarded line is known to be a request or
// a notification: a "method" member at either end.
func CutRequest(head, tail []byte) bool {
	var request bool
	see := func(key, _ []byte) {
		if KeyIs(key, "method") {
			request = true
		}
	}
	headMembers(head, see)
	tailMembers(tail, see)
	return request
}

// headMembers calls see with each member of the object that head begins,
// as far as head holds it: the value nil for the one it cuts.
func headMembers(b []byte, see func(key, v []byte)) {
	i := SkipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return
	}
	i = SkipWS(b, i+1)
	for i < len(b) && b[i] == '"' {
		ke := skipString(b, i)
		if ke < 0 {
			return
		}
		key := b[i+1 : ke-1]
		i = SkipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return
		}
		vs := SkipWS(b, i+1)
		ve := SkipValue(b, vs)
		if ve < 0 || ve >= len(b) { // cut: a number may go on
			see(key, nil)
			return
		}
		see(key, b[vs:ve])
		i = SkipWS(b, ve)
		if i >= len(b) || b[i] != ',' {
			return
		}
		i = SkipWS(b, i+1)
	}
}

// tailMembers calls see with the last members of the object that tail
// ends, read backwards, as long as their values are strings or scalars.
func tailMembers(b []byte, see func(key, v []byte)) {
	i := skipWSBack(b, len(b))
	if i == 0 || b[i-1] != '}' {
		return
	}
	i--
	for {
		i = skipWSBack(b, i)
		ve := i
		vs := valueStartBack(b, ve)
		if vs < 0 {
			return
		}
		i = skipWSBack(b, vs)
		if i == 0 || b[i-1] != ':' {
			return
		}
		i = skipWSBack(b, i-1)
		if i == 0 || b[i-1] != '"' {
			return
		}
		ks := stringStartBack(b, i)
		if ks < 0 {
			return
		}
		see(b[ks+1:i-1], b[vs:ve])
		i = skipWSBack(b, ks)
		if i == 0 || b[i-1] != ',' {
			return // '{': the first member; else more than tail holds
		}
		i--
	}
}

func skipWSBack(b []byte, i int) int {
	for i > 0 {
		switch b[i-1] {
		case ' ', '\t', '\r', '\n':
			i--
		default:
			return i
		}
	}
	return i
}

// valueStartBack returns where the string or scalar ending at b[e-1]
// begins, or -1 (an object, an array, or more than b holds).
func valueStartBack(b []byte, e int) int {
	if e == 0 {
		return -1
	}
	if b[e-1] == '"' {
		return stringStartBack(b, e)
	}
	i := e
	for i > 0 {
		c := b[i-1]
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '+' || c == '.' {
			i--
			continue
		}
		break
	}
	if i == e || i == 0 {
		return -1
	}
	return i
}

// stringStartBack returns the index of the opening quote of the string
// whose closing quote is b[e-1], or -1.
func stringStartBack(b []byte, e int) int {
	for i := e - 2; i >= 0; i-- {
		if b[i] != '"' {
			continue
		}
		bs := 0
		for k := i - 1; k >= 0 && b[k] == '\\'; k-- {
			bs++
		}
		if bs%2 == 0 {
			if bs == i { // the backslashes run to the start: we cannot tell
				return -1
			}
			return i
		}
	}
	return -1
}
