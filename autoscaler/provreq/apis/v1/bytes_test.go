// bytesReader, a reader over JSON bytes for the shape tests.

package v1_test

import (
	"bytes"
	"io"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
