package api

import (
	"bytes"
	"context"
	"fmt"

	"github.com/antchfx/xmlquery"
	"github.com/antchfx/xpath"

	"github.com/dynamo-feeds/dynamo"
)

// DefaultXPathBudget is the work one request's XPath evaluation may do over
// all the documents it reads: a step is one move of the evaluator over the
// tree or one byte of text it reads. An expression that selects items by
// their content costs a few thousand steps per version; only expressions
// whose cost grows with the square of a document get near the bound.
const DefaultXPathBudget = 20_000_000

// errXPathBudget reports an evaluation stopped for doing too much work.
var errXPathBudget = badParam("xpath", "xpath takes too much work to evaluate over this collection: simplify it, or add index=n to query one version")

// xpathSelector selects items with one expression in any number of
// documents, within one budget of steps and the request's deadline.
type xpathSelector struct {
	ctx    context.Context
	expr   *xpath.Expr
	budget int64
	// memory bounds the estimated size of the one document tree held at a
	// time (xpathTreeFactor bytes per byte of XML).
	memory int64
	err    error // why evaluation stopped early
}

// selectItems returns the items of doc that the expression selects: those
// of the item elements it selects or selects nodes inside of, in page
// order.
func (s *xpathSelector) selectItems(doc *dynamo.Resource) ([]dynamo.Item, error) {
	data := doc.XML()
	if tree := int64(len(data)) * xpathTreeFactor; s.memory > 0 && tree > s.memory {
		return nil, badParam("xpath", "a version of %d items (%d KiB) is too large to query with xpath within its memory bound (%d MiB): use title=, desc= or link=, or a smaller index", len(doc.Items), len(data)>>10, s.memory>>20)
	}
	root, err := xmlquery.Parse(bytes.NewReader(data))
	if err != nil { // Resource.XML always writes well-formed XML
		return nil, fmt.Errorf("xpath: parse stored document: %w", err)
	}
	ids, err := s.evaluate(root)
	if err != nil {
		return nil, err
	}
	var items []dynamo.Item
	for _, it := range doc.Items {
		if ids[it.ID] {
			items = append(items, it)
			delete(ids, it.ID) // an id given twice in a page is one item
		}
	}
	return items, nil
}

// evaluate runs the expression on one document and returns the ids of the
// items it reaches.
func (s *xpathSelector) evaluate(root *xmlquery.Node) (ids map[string]bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			ids, err = nil, badParam("xpath", "xpath cannot be evaluated: %v", p)
		}
	}()
	nav := &budgetNavigator{NodeNavigator: xmlquery.CreateXPathNavigator(root), s: s}
	ids = map[string]bool{}
	switch v := s.expr.Evaluate(nav).(type) {
	case *xpath.NodeIterator:
		for v.MoveNext() {
			cur, ok := v.Current().(*budgetNavigator)
			if !ok {
				continue
			}
			if id, ok := itemID(cur.NodeNavigator.(*xmlquery.NodeNavigator).Current()); ok {
				ids[id] = true
			}
		}
	default:
		return nil, badParam("xpath", "xpath must select nodes (such as //item[contains(title, 'x')]), not compute a %T", v)
	}
	if s.err != nil {
		return nil, s.err
	}
	return ids, nil
}

// itemID finds the item element at or above n, for a node selected inside
// an item.
func itemID(n *xmlquery.Node) (string, bool) {
	for ; n != nil; n = n.Parent {
		if n.Type == xmlquery.ElementNode && n.Data == "item" && n.Parent != nil && n.Parent.Data == "resource" {
			return n.SelectAttr("id"), true
		}
	}
	return "", false
}

// spend takes n steps from the budget. Once the budget or the deadline is
// gone it reports false forever, which makes every move fail and every
// value read empty, so the evaluator runs out of nodes and returns quickly
// whatever the expression.
func (s *xpathSelector) spend(n int) bool {
	if s.err != nil {
		return false
	}
	s.budget -= int64(n)
	if s.budget < 0 {
		s.err = errXPathBudget
		return false
	}
	if s.budget%1024 < int64(n) && s.ctx.Err() != nil {
		s.err = fmt.Errorf("xpath: %w", s.ctx.Err())
		return false
	}
	return true
}

// budgetNavigator is the evaluator's view of the tree, charging every step
// to the selector's budget. The XPath library cannot be cancelled, so this
// is how an expression of cubic cost is stopped.
type budgetNavigator struct {
	xpath.NodeNavigator
	s *xpathSelector
}

func (n *budgetNavigator) Value() string {
	if !n.s.spend(1) {
		return ""
	}
	v := n.NodeNavigator.Value()
	if !n.s.spend(len(v)) {
		return ""
	}
	return v
}

func (n *budgetNavigator) Copy() xpath.NodeNavigator {
	return &budgetNavigator{NodeNavigator: n.NodeNavigator.Copy(), s: n.s}
}

func (n *budgetNavigator) MoveToRoot() {
	n.s.spend(1)
	n.NodeNavigator.MoveToRoot()
}

func (n *budgetNavigator) MoveToParent() bool {
	return n.s.spend(1) && n.NodeNavigator.MoveToParent()
}

func (n *budgetNavigator) MoveToNextAttribute() bool {
	return n.s.spend(1) && n.NodeNavigator.MoveToNextAttribute()
}

func (n *budgetNavigator) MoveToChild() bool {
	return n.s.spend(1) && n.NodeNavigator.MoveToChild()
}

func (n *budgetNavigator) MoveToFirst() bool {
	return n.s.spend(1) && n.NodeNavigator.MoveToFirst()
}

func (n *budgetNavigator) MoveToNext() bool {
	return n.s.spend(1) && n.NodeNavigator.MoveToNext()
}

func (n *budgetNavigator) MoveToPrevious() bool {
	return n.s.spend(1) && n.NodeNavigator.MoveToPrevious()
}

func (n *budgetNavigator) MoveTo(other xpath.NodeNavigator) bool {
	if o, ok := other.(*budgetNavigator); ok {
		other = o.NodeNavigator
	}
	return n.s.spend(1) && n.NodeNavigator.MoveTo(other)
}

// NamespaceURL passes on the namespace of the current node, which the
// library asks for through an optional interface (namespace-uri()).
func (n *budgetNavigator) NamespaceURL() string {
	if ns, ok := n.NodeNavigator.(interface{ NamespaceURL() string }); ok {
		return ns.NamespaceURL()
	}
	return ""
}
