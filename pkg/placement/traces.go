// The fixed traces of the report: the default trace and the small one.

package placement

// defaultTrace is the report's trace on DefaultCluster (512 GPUs): 48 gangs,
// from single 2-GPU members to a rack's worth of whole nodes (16x8), mixed
// so that fragmentation is possible: 3-GPU members leave odd GPUs behind,
// small gangs depart and leave holes, and whole-clique (8x8) gangs keep
// arriving into a cluster that is 75-95% asked for. The smallest shape is 2
// GPUs per member, so one free GPU on a partly used node is stranded.
const defaultTrace = `
# Fill: 16 gangs, 389 GPUs asked for.
+ g01 4x8
+ g02 3x2
+ g03 2x3
+ g04 8x8
+ g05 4x4
+ g06 2x8
+ g07 5x3
+ g08 6x4
+ g09 1x2
+ g10 16x8
+ g11 4x2
+ g12 3x4
+ g13 2x3
+ g14 4x8
+ g15 2x2
+ g16 6x3
# Churn: small gangs leave holes, whole-clique gangs arrive.
- g02
- g05
- g07
+ g17 8x8
- g01
+ g18 3x3
+ g19 4x4
- g03
- g13
+ g20 2x8
+ g21 5x2
- g09
- g10
+ g22 12x8
+ g23 2x4
+ g24 4x3
- g12
- g06
+ g25 8x8
+ g26 3x2
- g15
- g16
+ g27 6x3
- g04
+ g28 4x8
+ g29 2x3
- g18
- g11
+ g30 8x4
+ g31 1x2
- g21
- g14
+ g32 8x8
- g19
- g23
+ g33 3x4
+ g34 4x2
- g08
- g26
+ g35 2x8
+ g36 5x3
- g17
- g20
+ g37 4x8
+ g38 6x4
- g24
- g27
+ g39 8x8
+ g40 3x3
- g22
+ g41 2x2
+ g42 12x8
- g29
- g31
+ g43 4x3
- g30
+ g44 2x8
- g33
+ g45 6x2
- g25
+ g46 8x8
+ g47 3x2
- g34
+ g48 4x4
`

// smallTrace is a short trace for SmallCluster (128 GPUs): 12 gangs, the
// same mix of shapes at a quarter of the size.
const smallTrace = `
+ s01 4x8
+ s02 3x2
+ s03 2x3
+ s04 2x8
+ s05 4x4
+ s06 3x3
- s02
+ s07 2x8
- s01
+ s08 3x4
+ s09 2x2
- s05
+ s10 4x8
- s03
+ s11 2x3
+ s12 1x2
`

// DefaultTrace is the report's fixed trace (see defaultTrace).
func DefaultTrace() Trace { return mustParse(defaultTrace) }

// SmallTrace is the short trace for SmallCluster.
func SmallTrace() Trace { return mustParse(smallTrace) }

func mustParse(text string) Trace {
	t, err := ParseTrace(text)
	if err != nil {
		panic(err)
	}
	return t
}
