package expr

import (
	"fmt"
	"reflect"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// valuesOf returns the values of the attribute name whose
// user.attributes value is v: its Values when it has them, else v alone,
// or none when v is "".
func (r *Record) valuesOf(name, v string) []string {
	if vs, ok := r.Values[name]; ok {
		return vs
	}
	if v == "" {
		return nil
	}
	return []string{v}
}

// checkValues enforces the limits on the values user.attributeValues
// gives: MaxAttributes values in all, each at most MaxValueLen bytes.
func (r *Record) checkValues() error {
	n, most, mostName := 0, 0, ""
	for name, v := range r.Attributes {
		vs := r.valuesOf(name, v)
		if n += len(vs); len(vs) > most {
			most, mostName = len(vs), name
		}
		for _, x := range vs {
			if len(x) > MaxValueLen {
				return fmt.Errorf("a value of attribute %s is %d bytes long, more than the %d expressions accept", name, len(x), MaxValueLen)
			}
		}
	}
	if n > MaxAttributes {
		return fmt.Errorf("the record's extra attributes have %d values (%s has %d), more than the %d expressions accept", n, mostName, most, MaxAttributes)
	}
	return nil
}

// attributeValues is user.attributeValues, read from a Record as it is
// when the expression looks: its keys are those of Attributes, each value
// a list (valuesOf). Nothing is converted per record but the list looked
// up.
type attributeValues struct{ r *Record }

var (
	_ traits.Mapper = attributeValues{}
	// nativeType is what the map converts to outside CEL.
	nativeType = reflect.TypeFor[map[string][]string]()
)

// Find implements traits.Mapper.
func (m attributeValues) Find(key ref.Val) (ref.Val, bool) {
	name, ok := key.(types.String)
	if !ok {
		return nil, false
	}
	v, ok := m.r.Attributes[string(name)]
	if !ok {
		return nil, false
	}
	return types.NewStringList(types.DefaultTypeAdapter, m.r.valuesOf(string(name), v)), true
}

// Get implements traits.Indexer.
func (m attributeValues) Get(key ref.Val) ref.Val {
	if v, ok := m.Find(key); ok {
		return v
	}
	return types.ValOrErr(key, "no such key: %v", key)
}

// Contains implements traits.Container.
func (m attributeValues) Contains(key ref.Val) ref.Val {
	_, ok := m.Find(key)
	return types.Bool(ok)
}

// Size implements traits.Sizer.
func (m attributeValues) Size() ref.Val { return types.Int(len(m.r.Attributes)) }

// Iterator implements traits.Iterable: the keys, those of user.attributes.
func (m attributeValues) Iterator() traits.Iterator {
	return types.NewStringStringMap(types.DefaultTypeAdapter, m.r.Attributes).Iterator()
}

// native returns the map as Go values.
func (m attributeValues) native() map[string][]string {
	out := make(map[string][]string, len(m.r.Attributes))
	for name, v := range m.r.Attributes {
		out[name] = m.r.valuesOf(name, v)
	}
	return out
}

// ConvertToNative implements ref.Val.
func (m attributeValues) ConvertToNative(t reflect.Type) (any, error) {
	if t == nativeType {
		return m.native(), nil
	}
	return types.DefaultTypeAdapter.NativeToValue(m.native()).ConvertToNative(t)
}

// ConvertToType implements ref.Val.
func (m attributeValues) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.MapType:
		return m
	case types.TypeType:
		return types.MapType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", types.MapType, t)
}

// Equal implements ref.Val: the same keys with equal lists.
func (m attributeValues) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Mapper)
	if !ok || o.Size() != m.Size() {
		return types.False
	}
	for it := m.Iterator(); it.HasNext() == types.True; {
		k := it.Next()
		ov, found := o.Find(k)
		if !found {
			return types.False
		}
		v, _ := m.Find(k)
		if types.Equal(v, ov) != types.True {
			return types.False
		}
	}
	return types.True
}

// Type implements ref.Val.
func (attributeValues) Type() ref.Type { return types.MapType }

// Value implements ref.Val.
func (m attributeValues) Value() any { return m.native() }
