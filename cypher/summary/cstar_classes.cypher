// One scratch CStarClass node per distinct c* key of a depth level
MATCH (u:Unit {kind: 0, depth: $depth})
WITH DISTINCT u._part AS key
MERGE (:CStarClass {key: key})
