// Whether every unit's held link count is right as of the store's last load
// ($right), or not (a load about to change LINK edges: one killed before its
// end leaves the counts to be made again, read/meta's held false meanwhile)
MATCH (m:Meta {key: 'graphprum'})
SET m.held_load = CASE WHEN $right THEN m.load_count ELSE -1 END
