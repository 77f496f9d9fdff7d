// One attribute property `@NAME` of units, from packed records: unit id FS value.
// {property} stands for the property name in backquotes (a property name cannot
// be a parameter)
UNWIND split($data, $rs) AS r
WITH split(r, $fs) AS f
MATCH (u:Unit {uid: f[0]})
SET u.{property} = f[1]
