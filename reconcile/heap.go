package reconcile

import "container/heap"

// entryHeap orders entry indexes by level, highest first, then by index.
type entryHeap struct {
	level []int
	items []int
}

func (h *entryHeap) Len() int { return len(h.items) }
func (h *entryHeap) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	if h.level[a] != h.level[b] {
		return h.level[a] > h.level[b]
	}
	return a < b
}
func (h *entryHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }

// Push and Pop implement heap.Interface; use push and pop.
func (h *entryHeap) Push(x any) { h.items = append(h.items, x.(int)) }

// Pop implements heap.Interface.
func (h *entryHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

func (h *entryHeap) push(i int) { heap.Push(h, i) }
func (h *entryHeap) pop() int   { return heap.Pop(h).(int) }
