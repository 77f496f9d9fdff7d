// AxPRE p*: the incoming label path (root to element), which every unit keeps
// as its path
MATCH (u:Unit {kind: 0})
SET u._part = u.path
