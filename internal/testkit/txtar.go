package testkit

import "github.com/rogpeppe/go-internal/txtar"

// Section is the file name of archive ar (false when it has none).
func Section(ar *txtar.Archive, name string) ([]byte, bool) {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

// SetSection sets file name of archive ar to data, adding it at the end
// when it has none.
func SetSection(ar *txtar.Archive, name string, data []byte) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = data
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: data})
}
