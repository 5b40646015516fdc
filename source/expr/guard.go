package expr

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/functions"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/ext"
)

// MaxResultLen bounds the string that one call of replace, join or format
// may make. CEL counts the cost of a call only once the call has returned,
// and these three can make, in one call, a string the size of the product
// of their inputs' (user.firstname.replace("", user.firstname) is
// gigabytes for a 64 KiB name): the cost limit alone would stop such an
// expression only after it had spent minutes and gigabytes on one record.
// They are therefore declared again, with the same signatures, to check
// the size of what they would make before making it.
const MaxResultLen = 1 << 20

// guardedStrings redeclares the string extensions' replace, join and
// format with a check of their result's size; declared after
// ext.Strings, they replace its implementations (cel-go allows it when
// the signature is the same).
func guardedStrings() []cel.EnvOption {
	str, list, dynList := cel.StringType, cel.ListType(cel.StringType), cel.ListType(cel.DynType)
	return []cel.EnvOption{
		cel.Function("replace",
			cel.MemberOverload("string_replace_string_string", []*cel.Type{str, str, str}, str,
				cel.FunctionBinding(func(args ...ref.Val) ref.Val { return replaceN(args[0], args[1], args[2], types.Int(-1)) })),
			cel.MemberOverload("string_replace_string_string_int", []*cel.Type{str, str, str, cel.IntType}, str,
				cel.FunctionBinding(func(args ...ref.Val) ref.Val { return replaceN(args[0], args[1], args[2], args[3]) }))),
		cel.Function("join",
			cel.MemberOverload("list_join", []*cel.Type{list}, str,
				cel.UnaryBinding(func(l ref.Val) ref.Val { return join(l, "") })),
			cel.MemberOverload("list_join_string", []*cel.Type{list, str}, str,
				cel.BinaryBinding(func(l, sep ref.Val) ref.Val { return join(l, string(sep.(types.String))) }))),
		cel.Function("format",
			cel.MemberOverload("string_format", []*cel.Type{str, dynList}, str,
				cel.FunctionBinding(func(args ...ref.Val) ref.Val { return format(args[0], args[1]) }))),
	}
}

// letterCase declares upper() and lower(), which change every letter as
// Unicode says ("Zoë".upper() is "ZOË"), beside the string extensions'
// upperAscii() and lowerAscii(), which change the ASCII letters only.
func letterCase() []cel.EnvOption {
	caseFn := func(name string, to func(string) string) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload("string_"+name, []*cel.Type{cel.StringType}, cel.StringType,
			cel.UnaryBinding(func(s ref.Val) ref.Val { return types.String(to(string(s.(types.String)))) })))
	}
	return []cel.EnvOption{caseFn("upper", strings.ToUpper), caseFn("lower", strings.ToLower)}
}

// tooLong is the error of a call that would make a string over MaxResultLen.
func tooLong(fn string) ref.Val {
	return types.NewErrFromString(fmt.Sprintf("%s would make a string of more than %d bytes, the most an expression may make", fn, MaxResultLen))
}

// replaceN is the string extension's replace, checked first.
func replaceN(s, old, repl, limit ref.Val) ref.Val {
	str, o, r, n := string(s.(types.String)), string(old.(types.String)), string(repl.(types.String)), int(limit.(types.Int))
	count := strings.Count(str, o)
	if o == "" {
		count = utf8.RuneCountInString(str) + 1
	}
	if n >= 0 && n < count {
		count = n
	}
	if size := len(str) + count*(len(r)-len(o)); size > MaxResultLen {
		return tooLong("replace")
	}
	return types.String(strings.Replace(str, o, r, n))
}

// join is the string extension's join, checked first.
func join(list ref.Val, sep string) ref.Val {
	l := list.(traits.Lister)
	n := int(l.Size().(types.Int))
	parts := make([]string, n)
	size := len(sep) * max(n-1, 0)
	for i := range n {
		s, ok := l.Get(types.Int(i)).(types.String)
		if !ok {
			return types.NewErrFromString(fmt.Sprintf("join: item %d is not a string", i))
		}
		parts[i], size = string(s), size+len(s)
		if size > MaxResultLen {
			return tooLong("join")
		}
	}
	return types.String(strings.Join(parts, sep))
}

// format runs the string extension's format once the size of its
// arguments (their strings, nested lists and maps included) is known to
// be within MaxResultLen; it then checks the size of what it made.
func format(template, args ref.Val) ref.Val {
	size := len(template.(types.String)) + sizeOf(args, MaxResultLen)
	if size > MaxResultLen {
		return tooLong("format")
	}
	out := extFormat(template, args)
	if s, ok := out.(types.String); ok && len(s) > MaxResultLen {
		return tooLong("format")
	}
	return out
}

// extFormat is the string extension's own format.
var extFormat = func() functions.BinaryOp {
	env, err := cel.NewEnv(ext.Strings())
	var overloads []*functions.Overload
	if err == nil {
		overloads, err = env.Functions()["format"].Bindings()
	}
	for _, o := range overloads {
		if f := o.Function; o.Operator == "string_format" && f != nil {
			return func(t, a ref.Val) ref.Val { return f(t, a) }
		}
	}
	panic(fmt.Sprintf("expr: the string extension has no format to guard (%v)", err))
}()

// sizeOf returns about how many bytes v prints as: the length of its
// strings and 8 per other value, counting lists and maps item by item,
// and stopping once it passes limit.
func sizeOf(v ref.Val, limit int) int {
	switch v := v.(type) {
	case types.String:
		return len(v)
	case types.Bytes:
		return len(v)
	case traits.Lister:
		n, size := int(v.Size().(types.Int)), 8
		for i := 0; i < n && size <= limit; i++ {
			size += 2 + sizeOf(v.Get(types.Int(i)), limit-size)
		}
		return size
	case traits.Mapper:
		size := 8
		for it := v.Iterator(); it.HasNext() == types.True && size <= limit; {
			k := it.Next()
			size += 4 + sizeOf(k, limit-size) + sizeOf(v.Get(k), limit-size)
		}
		return size
	}
	return 8
}
