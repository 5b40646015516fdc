package userrec

import "github.com/orgsync/orgsync/target/umwire"

// checkEmail is umwire.CheckEmail with a fast path: an address that is
// plainly valid (see plainEmail) is accepted without parsing it.
func checkEmail(email string) error {
	if plainEmail(email) {
		return nil
	}
	return umwire.CheckEmail(email)
}

// plainEmail reports whether email is an ASCII dot-atom address
// (letters, digits and !#$%&'*+-/=?^_`{|}~ in the local part, letters,
// digits and hyphens in the domain's labels, no empty dot-separated part)
// of at most umwire.MaxEmailLength characters. Every such address
// passes umwire.CheckEmail (a fuzz test checks it); the others are
// left to it.
func plainEmail(email string) bool {
	if len(email) > umwire.MaxEmailLength {
		return false
	}
	at := -1
	prev := byte('.') // no leading dot
	for i := 0; i < len(email); i++ {
		c := email[i]
		switch {
		case c == '@':
			if at >= 0 || prev == '.' {
				return false
			}
			at, c = i, '.' // the domain must not start with a dot either
		case c == '.':
			if prev == '.' {
				return false
			}
		case isAlnum(c), c == '-':
		case at < 0 && isAtomSymbol(c):
		default:
			return false
		}
		prev = c
	}
	return at > 0 && prev != '.'
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isAtomSymbol(c byte) bool {
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '/', '=', '?', '^', '_', '`', '{', '|', '}', '~':
		return true
	}
	return false
}
