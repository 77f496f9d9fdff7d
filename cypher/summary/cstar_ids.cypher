// The class id of every element of a depth level: its key's CStarClass node
MATCH (u:Unit {kind: 0, depth: $depth})
MATCH (c:CStarClass {key: u._part})
SET u._cid = id(c)
