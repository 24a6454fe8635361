// bcryptprimitives.c is a stand-in for Windows' bcryptprimitives.dll under
// Wine 8, which lacks ProcessPrng: Go 1.22 and later call it for random
// bytes before main runs, and die without it ("bcryptprimitives.dll not
// found"). scripts/wine.sh builds it with mingw and copies it into its
// private prefix's System32 (Go loads the DLL from System32 only). Real
// Windows 10 and later have the real one; this file is never shipped.
#include <windows.h>
#include <ntsecapi.h>

// ProcessPrng fills data with len random bytes from RtlGenRandom
// (advapi32's SystemFunction036), in chunks its ULONG length can hold. As
// on Windows, it always returns TRUE.
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!RtlGenRandom(data, n))
			ExitProcess(2);
		data += n;
		len -= n;
	}
	return TRUE;
}
