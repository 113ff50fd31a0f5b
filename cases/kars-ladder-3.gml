graph [
  directed 1
  semantics "minimax"
  id "kars-ladder-3"
  root "t"
  source "Kars 1990, Example 7.4 (Figure 6 missing from the scan; shape in docs/ladder.md)"
  description "Ladder graph L_3: 3 layers under a top node, 14 nodes."
  node [
    id 0
    label "t"
    owner "max"
  ]
  node [
    id 1
    label "a1"
    owner "min"
  ]
  node [
    id 2
    label "b1"
    owner "min"
  ]
  node [
    id 3
    label "a2"
    owner "max"
  ]
  node [
    id 4
    label "b2"
    owner "max"
  ]
  node [
    id 5
    label "a3"
    owner "min"
  ]
  node [
    id 6
    label "b3"
    owner "min"
  ]
  node [
    id 7
    label "t'"
    value -4.0
  ]
  node [
    id 8
    label "a1'"
    value 1.0
  ]
  node [
    id 9
    label "b1'"
    value -1.0
  ]
  node [
    id 10
    label "a2'"
    value -2.0
  ]
  node [
    id 11
    label "b2'"
    value 2.0
  ]
  node [
    id 12
    label "a3'"
    value 3.0
  ]
  node [
    id 13
    label "b3'"
    value -3.0
  ]
  edge [
    source 0
    target 1
  ]
  edge [
    source 0
    target 2
  ]
  edge [
    source 0
    target 7
  ]
  edge [
    source 1
    target 0
  ]
  edge [
    source 1
    target 3
  ]
  edge [
    source 1
    target 8
  ]
  edge [
    source 2
    target 0
  ]
  edge [
    source 2
    target 4
  ]
  edge [
    source 2
    target 9
  ]
  edge [
    source 3
    target 2
  ]
  edge [
    source 3
    target 5
  ]
  edge [
    source 3
    target 10
  ]
  edge [
    source 4
    target 1
  ]
  edge [
    source 4
    target 6
  ]
  edge [
    source 4
    target 11
  ]
  edge [
    source 5
    target 4
  ]
  edge [
    source 5
    target 12
  ]
  edge [
    source 6
    target 3
  ]
  edge [
    source 6
    target 13
  ]
]
