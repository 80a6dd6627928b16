/*
 * bcryptprimitives.dll for Wine: Go's Windows runtime (1.24 and later)
 * gets its random bytes from ProcessPrng, which Debian's Wine 8 lacks, so
 * a Go binary stops at start. This exports ProcessPrng on top of
 * RtlGenRandom (advapi32's SystemFunction036), which Wine has. For tests
 * under Wine only (script/wine/test); never shipped.
 */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
		if (!RtlGenRandom(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
