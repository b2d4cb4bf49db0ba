package datasets

// elementSymbols[Z-1] is the symbol of the element with atomic number Z
// (IUPAC, Z = 1..118). Magpie tables are indexed by Z.
var elementSymbols = [...]string{
	"H", "He",
	"Li", "Be", "B", "C", "N", "O", "F", "Ne",
	"Na", "Mg", "Al", "Si", "P", "S", "Cl", "Ar",
	"K", "Ca", "Sc", "Ti", "V", "Cr", "Mn", "Fe", "Co", "Ni", "Cu", "Zn", "Ga", "Ge", "As", "Se", "Br", "Kr",
	"Rb", "Sr", "Y", "Zr", "Nb", "Mo", "Tc", "Ru", "Rh", "Pd", "Ag", "Cd", "In", "Sn", "Sb", "Te", "I", "Xe",
	"Cs", "Ba",
	"La", "Ce", "Pr", "Nd", "Pm", "Sm", "Eu", "Gd", "Tb", "Dy", "Ho", "Er", "Tm", "Yb", "Lu",
	"Hf", "Ta", "W", "Re", "Os", "Ir", "Pt", "Au", "Hg", "Tl", "Pb", "Bi", "Po", "At", "Rn",
	"Fr", "Ra",
	"Ac", "Th", "Pa", "U", "Np", "Pu", "Am", "Cm", "Bk", "Cf", "Es", "Fm", "Md", "No", "Lr",
	"Rf", "Db", "Sg", "Bh", "Hs", "Mt", "Ds", "Rg", "Cn", "Nh", "Fl", "Mc", "Lv", "Ts", "Og",
}

var atomicNumbers = func() map[string]int {
	m := make(map[string]int, len(elementSymbols))
	for i, s := range elementSymbols {
		m[s] = i + 1
	}
	return m
}()

// atomicNumber returns Z for an element symbol ("Fe" -> 26), or 0 if the
// symbol is unknown.
func atomicNumber(symbol string) int { return atomicNumbers[symbol] }

// elementSymbol returns the symbol of atomic number z, or "" outside 1..118.
func elementSymbol(z int) string {
	if z < 1 || z > len(elementSymbols) {
		return ""
	}
	return elementSymbols[z-1]
}
