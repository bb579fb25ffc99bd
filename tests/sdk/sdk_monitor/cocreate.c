/*
 * cocreate.c - a Windows program that creates a registered monitor the way the agent does: by
 * its CLSID through the registry (CoCreateInstance, in process), asking for IJavaEventMonitor.
 * test_dist.c builds it from a dist archive's headers and libraries.
 *   cocreate {clsid}   prints one line; exits 0 when the monitor was created, 1 when not.
 */
#include <stdio.h>

#include <jevmon.h>

int main(int argc, char **argv)
{
    WCHAR text[64];
    CLSID clsid;
    IJavaEventMonitor *monitor = NULL;
    HRESULT hr;
    if (argc != 2 || !MultiByteToWideChar(CP_ACP, 0, argv[1], -1, text, 64) || FAILED(CLSIDFromString(text, &clsid))) {
        fprintf(stderr, "usage: cocreate {clsid}\n");
        return 2;
    }
    CoInitializeEx(NULL, COINIT_MULTITHREADED);
    hr = CoCreateInstance(&clsid, NULL, CLSCTX_INPROC_SERVER, &IID_IJavaEventMonitor, (void **)&monitor);
    if (SUCCEEDED(hr)) {
        printf("created %s\n", argv[1]);
        monitor->lpVtbl->Release(monitor);
    } else {
        printf("CoCreateInstance of %s failed: hr=0x%08lx\n", argv[1], (unsigned long)hr);
    }
    CoUninitialize();
    return SUCCEEDED(hr) ? 0 : 1;
}
