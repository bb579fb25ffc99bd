/*
 * callcount.cpp - CallCount, a sample event monitor in C++ that counts how often each
 * Java method is called and, when the VM shuts down, writes the counts to a text file,
 * most-called first, one "count name" line per method (name as MethodInformation gives
 * it: java/lang/String.hashCode()I).
 *
 * It shows the C++ shape of a 1999 monitor: a class deriving from the SDK interface
 * (CMonitor : IJavaEventMonitor2), a class factory class, the four DLL exports
 * (callcount.def) and self-registration.  The same source builds as callcount.dll for
 * Windows and callcount.so for jevmon on Linux.
 *
 *   CALLCOUNT_FILE  where the counts go (default: callcount.txt in the current directory)
 *   CALLCOUNT_CLASS count only the methods of the class of that name (java.lang.String):
 *                   SPECIFIC_METHOD_CALLS, with EnableMethodCallEvents when the class loads
 *
 * Calls are counted per thread, in tables only their thread writes (CThreadCounts), and
 * added up at SHUTDOWN, when no call is being counted any more.
 *
 * The first line of the file, starting with '#', says which JAVA_MONITOR_INIT_OPTIONS
 * the VM granted (GetFinalInitializationOptions): register the monitor with
 * registry/callcount-fast.reg to have its InitOptions value promise what CallCount
 * keeps anyway (no GC in method callbacks, no return values, no toggling), which lets
 * the VM count calls much more cheaply.
 */
#include <windows.h>
#include <objbase.h>
#include <initguid.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <new>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "jevmon.h"
#include "jevmon_register.h"

// {0A2F6C9B-77EC-4D2A-8084-DCAFBC265070}
DEFINE_GUID(CLSID_CallCount, 0x0A2F6C9B, 0x77EC, 0x4D2A, 0x80, 0x84, 0xDC, 0xAF, 0xBC, 0x26, 0x50, 0x70);

static const char kKeyName[] = "callcount";
static const char kDefaultFile[] = "callcount.txt";

// Objects alive and server locks: the DLL may be unloaded when both are zero.
static LONG g_cObjects = 0;
static LONG g_cLocks = 0;

/*
 * A lock for the rare paths: a method's first call on a thread, class unloads, the final
 * report.  A spin lock, because C++11 <mutex> is missing from MinGW's win32 thread model
 * and these sections are short.
 */
class CSpinLock {
public:
    void Lock()
    {
        while (m_flag.test_and_set(std::memory_order_acquire)) {
        }
    }
    void Unlock() { m_flag.clear(std::memory_order_release); }

private:
    std::atomic_flag m_flag = ATOMIC_FLAG_INIT;
};

class CAutoLock {
public:
    explicit CAutoLock(CSpinLock &lock) : m_lock(lock) { m_lock.Lock(); }
    ~CAutoLock() { m_lock.Unlock(); }
    CAutoLock(const CAutoLock &) = delete;
    CAutoLock &operator=(const CAutoLock &) = delete;

private:
    CSpinLock &m_lock;
};

// What CallCount knows of one MethodID: resolved once, on its first call.  A record is
// retired when its class unloads (the VM may then reuse the MethodID) and kept for the report.
struct MethodRecord {
    std::string name;
    ClassID class_id;
    bool retired; // under the monitor's lock
};

/*
 * One thread's counts, written only by that thread, so counting a call takes no lock and
 * no locked instruction: an open-addressing table from MethodID to its record and count.
 * When classes unload, the thread moves the counts of retired records to m_expired before
 * it counts again (CMonitor::SweepRetired), so a reused MethodID starts afresh.
 */
class CThreadCounts {
public:
    struct Slot {
        MethodID id; // 0: empty
        MethodRecord *record;
        unsigned long long calls;
    };

    CThreadCounts() : unloads(0), m_slots(NULL), m_mask(0), m_used(0) {}
    ~CThreadCounts() { delete[] m_slots; }
    CThreadCounts(const CThreadCounts &) = delete;
    CThreadCounts &operator=(const CThreadCounts &) = delete;

    // The slot holding id, or the empty slot where it goes; NULL before the first Reserve.
    Slot *Find(MethodID id)
    {
        if (!m_slots)
            return NULL;
        size_t i = Hash(id) & m_mask;
        while (m_slots[i].id != id && m_slots[i].id != 0)
            i = (i + 1) & m_mask;
        return &m_slots[i];
    }
    // Room for one more MethodID; false when out of memory.
    bool Reserve()
    {
        if (m_slots && (m_used + 1) * 2 <= m_mask + 1)
            return true;
        size_t capacity = m_slots ? (m_mask + 1) * 2 : 256;
        Slot *old = m_slots;
        size_t oldCapacity = m_slots ? m_mask + 1 : 0;
        m_slots = new (std::nothrow) Slot[capacity]();
        if (!m_slots) {
            m_slots = old;
            return false;
        }
        m_mask = capacity - 1;
        for (size_t i = 0; i < oldCapacity; i++)
            if (old[i].id)
                *Find(old[i].id) = old[i];
        delete[] old;
        return true;
    }
    void Added() { m_used++; }
    template <class F> void ForEach(F f) const
    {
        for (size_t i = 0; m_slots && i <= m_mask; i++)
            if (m_slots[i].id)
                f(m_slots[i].record, m_slots[i].calls);
        for (size_t i = 0; i < m_expired.size(); i++)
            f(m_expired[i].first, m_expired[i].second);
    }
    // Moves the counts of retired records to m_expired (under the monitor's lock).
    void ExpireRetired()
    {
        Slot *old = m_slots;
        size_t oldCapacity = m_slots ? m_mask + 1 : 0;
        bool any = false;
        for (size_t i = 0; i < oldCapacity && !any; i++)
            any = old[i].id && old[i].record->retired;
        if (!any)
            return;
        m_slots = new (std::nothrow) Slot[oldCapacity]();
        if (!m_slots) { // keep counting into the old names rather than lose counts
            m_slots = old;
            return;
        }
        m_used = 0;
        for (size_t i = 0; i < oldCapacity; i++) {
            if (!old[i].id)
                continue;
            if (old[i].record->retired)
                m_expired.push_back(std::make_pair(old[i].record, old[i].calls));
            else {
                *Find(old[i].id) = old[i];
                m_used++;
            }
        }
        delete[] old;
    }

    unsigned long unloads; // the monitor's unload count when this table was last swept

private:
    // Close MethodIDs get close slots: a class's methods get their IDs together, so the hot
    // methods of a class share cache lines.  IDs far apart are spread by their high bits.
    static size_t Hash(MethodID id)
    {
        unsigned long long v = (unsigned long long)id;
        return (size_t)((v >> 4) + (v >> 32) * 0x9E3779B97F4A7C15ull);
    }

    Slot *m_slots;
    size_t m_mask;
    size_t m_used;
    std::vector<std::pair<MethodRecord *, unsigned long long> > m_expired;
};

// The last monitor instance this thread counted for; instances have serial numbers that
// are never reused, so a destroyed instance's tables are never found again.
struct ThreadLast {
    unsigned long serial;
    CThreadCounts *counts;
};
static thread_local ThreadLast t_last;
static thread_local char t_threadToken; // its address names the thread
static std::atomic<unsigned long> g_nextSerial(1);

class CMonitor final : public IJavaEventMonitor2 {
public:
    CMonitor();

    // IUnknown
    STDMETHOD(QueryInterface)(REFIID riid, void **ppv);
    STDMETHOD_(ULONG, AddRef)();
    STDMETHOD_(ULONG, Release)();

    // IJavaEventMonitor
    STDMETHOD(ExecuteByteCode)(MethodID method_id, BYTE_CODE *pbyte_code, DWORD byte_code_offset);
    STDMETHOD(ExecuteSourceLine)(MethodID method_id, DWORD line_number);
    STDMETHOD(Initialize)(LPCSTR pclass_file_name, IJavaEventMonitorIDInfo *pmonitor_info, DWORD java_flags,
                          DWORD *prequested_events);
    STDMETHOD(MethodEntry)(MethodID method_id, StackID stack_id);
    STDMETHOD(MethodExit)(StackID stack_id);
    STDMETHOD(NotifyEvent)(JVM_EVENT_TYPE event, UniqueID event_id);

    // IJavaEventMonitor2
    STDMETHOD(GetPossibleEventCategories)(DWORD *ppossible_events);
    STDMETHOD(MethodExit2)(MethodID method_id, StackID stack_id);
    STDMETHOD(NotifyEvent2)(JVM_EVENT_TYPE2 event2, UniqueID first_event_id, UniqueID second_event_id);

private:
    ~CMonitor();
    CThreadCounts *CountsOfThisThread();
    void CountFirstCall(CThreadCounts *pCounts, MethodID method_id);
    MethodRecord *RecordOf(MethodID method_id);
    void RetireClass(ClassID class_id);
    void WriteCounts();

    // Method calls, plus the class loads whose unloads end MethodIDs (which the VM may then reuse).
    static const DWORD kEvents = JVM_MONITOR_METHOD_CALLS | JVM_MONITOR_CLASS_LOADS;
    // With CALLCOUNT_CLASS: the calls of the methods enabled one class at a time.
    static const DWORD kSpecificEvents = JVM_MONITOR_SPECIFIC_METHOD_CALLS | JVM_MONITOR_CLASS_LOADS;

    void EnableIfCounted(ClassID class_id);

    LONG m_cRef;
    IJavaEventMonitorIDInfo *m_pInfo;   // AddRef'd in Initialize
    IJavaEventMonitorIDInfo4 *m_pInfo4; // NULL on a VM without initialization options
    std::string m_countedClass;         // CALLCOUNT_CLASS, empty for every method
    bool m_fOptionsKnown;
    DWORD m_dwFinalOptions;

    const unsigned long m_serial;
    std::atomic<unsigned long> m_unloads; // classes unloaded so far: tables compare it with their own
    CSpinLock m_lock; // guards the three containers
    std::unordered_map<MethodID, MethodRecord *> m_records; // live MethodIDs
    std::vector<MethodRecord *> m_allRecords;               // owns every record, retired ones too
    std::map<const void *, CThreadCounts *> m_threads;      // by thread token; owns the tables
};

CMonitor::CMonitor()
    : m_cRef(1), m_pInfo(NULL), m_pInfo4(NULL), m_fOptionsKnown(false), m_dwFinalOptions(0),
      m_serial(g_nextSerial++), m_unloads(0)
{
    InterlockedIncrement(&g_cObjects);
}

CMonitor::~CMonitor()
{
    for (std::map<const void *, CThreadCounts *>::iterator it = m_threads.begin(); it != m_threads.end(); ++it)
        delete it->second;
    for (size_t i = 0; i < m_allRecords.size(); i++)
        delete m_allRecords[i];
    if (m_pInfo4)
        m_pInfo4->Release();
    if (m_pInfo)
        m_pInfo->Release();
    InterlockedDecrement(&g_cObjects);
}

STDMETHODIMP CMonitor::QueryInterface(REFIID riid, void **ppv)
{
    if (IsEqualIID(riid, IID_IUnknown) || IsEqualIID(riid, IID_IJavaEventMonitor) ||
        IsEqualIID(riid, IID_IJavaEventMonitor2)) {
        *ppv = static_cast<IJavaEventMonitor2 *>(this);
        AddRef();
        return S_OK;
    }
    *ppv = NULL;
    return E_NOINTERFACE;
}

STDMETHODIMP_(ULONG) CMonitor::AddRef()
{
    return (ULONG)InterlockedIncrement(&m_cRef);
}

STDMETHODIMP_(ULONG) CMonitor::Release()
{
    LONG cRef = InterlockedDecrement(&m_cRef);
    if (cRef == 0)
        delete this;
    return (ULONG)cRef;
}

STDMETHODIMP CMonitor::Initialize(LPCSTR pclass_file_name, IJavaEventMonitorIDInfo *pmonitor_info,
                                  DWORD java_flags, DWORD *prequested_events)
{
    (void)pclass_file_name;
    (void)java_flags;
    m_pInfo = pmonitor_info;
    m_pInfo->AddRef();
    // IDInfo4 only tells which initialization options were granted; counting works without it.
    if (FAILED(m_pInfo->QueryInterface(IID_IJavaEventMonitorIDInfo4, (void **)&m_pInfo4)))
        m_pInfo4 = NULL;
    const char *pszClass = getenv("CALLCOUNT_CLASS");
    if (pszClass && *pszClass && m_pInfo4) // EnableMethodCallEvents is IDInfo3's
        m_countedClass = pszClass;
    *prequested_events = m_countedClass.empty() ? kEvents : kSpecificEvents;
    return S_OK;
}

STDMETHODIMP CMonitor::GetPossibleEventCategories(DWORD *ppossible_events)
{
    *ppossible_events = m_countedClass.empty() ? kEvents : kSpecificEvents;
    return S_OK;
}

void CMonitor::EnableIfCounted(ClassID class_id)
{
    LPSTR pszName = NULL;
    if (m_countedClass.empty() ||
        FAILED(m_pInfo->ClassInformation(class_id, &pszName, NULL, NULL, NULL, NULL)) || !pszName)
        return;
    if (m_countedClass == pszName)
        m_pInfo4->EnableMethodCallEvents(class_id, JVM_ID_CLASS, JVM_PERMIT_METHOD_CALL_EVENTS);
    CoTaskMemFree(pszName);
}

// The live record of a MethodID, made on its first call; NULL when out of memory.
MethodRecord *CMonitor::RecordOf(MethodID method_id)
{
    {
        CAutoLock lock(m_lock);
        std::unordered_map<MethodID, MethodRecord *>::iterator it = m_records.find(method_id);
        if (it != m_records.end())
            return it->second;
    }
    // Ask the VM for the name without holding the lock.
    LPSTR pszName = NULL;
    ClassID class_id = 0;
    JAVA_EXECUTION_MODEL exec;
    int cLines = 0;
    SourceLineInfo *pLines = NULL;
    MethodRecord *pRecord = new (std::nothrow) MethodRecord();
    if (pRecord) {
        bool named = SUCCEEDED(m_pInfo->MethodInformation(method_id, &pszName, &class_id, &exec, &cLines, &pLines));
        pRecord->name = named && pszName ? pszName : "?";
        pRecord->class_id = class_id;
        pRecord->retired = false;
    }
    CoTaskMemFree(pszName);
    CoTaskMemFree(pLines);
    if (!pRecord)
        return NULL;
    CAutoLock lock(m_lock);
    // Another thread may have made it meanwhile; the first one stays.
    std::pair<std::unordered_map<MethodID, MethodRecord *>::iterator, bool> added =
        m_records.emplace(method_id, pRecord);
    if (added.second)
        m_allRecords.push_back(pRecord);
    else
        delete pRecord;
    return added.first->second;
}

// This thread's table, made on its first call.
CThreadCounts *CMonitor::CountsOfThisThread()
{
    CAutoLock lock(m_lock);
    CThreadCounts *&pCounts = m_threads[&t_threadToken];
    if (!pCounts)
        pCounts = new (std::nothrow) CThreadCounts();
    t_last.serial = m_serial;
    t_last.counts = pCounts;
    return pCounts;
}

STDMETHODIMP CMonitor::MethodEntry(MethodID method_id, StackID stack_id)
{
    (void)stack_id;
    CThreadCounts *pCounts = t_last.serial == m_serial ? t_last.counts : CountsOfThisThread();
    if (!pCounts)
        return S_OK;
    CThreadCounts::Slot *pSlot = pCounts->Find(method_id);
    if (pSlot && pSlot->id == method_id && pCounts->unloads == m_unloads.load(std::memory_order_relaxed))
        pSlot->calls++;
    else
        CountFirstCall(pCounts, method_id);
    return S_OK;
}

// A MethodID's first call on this thread, or any call after classes unloaded.
void CMonitor::CountFirstCall(CThreadCounts *pCounts, MethodID method_id)
{
    unsigned long unloads = m_unloads.load(std::memory_order_acquire);
    if (pCounts->unloads != unloads) {
        CAutoLock lock(m_lock);
        pCounts->ExpireRetired();
        pCounts->unloads = unloads;
    }
    CThreadCounts::Slot *pSlot = pCounts->Find(method_id);
    if (pSlot && pSlot->id == method_id) {
        pSlot->calls++;
        return;
    }
    MethodRecord *pRecord = RecordOf(method_id);
    if (!pRecord || !pCounts->Reserve())
        return;
    pSlot = pCounts->Find(method_id);
    pSlot->id = method_id;
    pSlot->record = pRecord;
    pSlot->calls = 1;
    pCounts->Added();
}

// MethodIDs of an unloaded class expire: their records retire, keeping their names for the report.
void CMonitor::RetireClass(ClassID class_id)
{
    CAutoLock lock(m_lock);
    for (std::unordered_map<MethodID, MethodRecord *>::iterator it = m_records.begin(); it != m_records.end();) {
        if (it->second->class_id == class_id) {
            it->second->retired = true;
            it = m_records.erase(it);
        } else
            ++it;
    }
    m_unloads.fetch_add(1, std::memory_order_release);
}

static bool MoreCallsFirst(const std::pair<std::string, unsigned long long> &a,
                           const std::pair<std::string, unsigned long long> &b)
{
    return a.second != b.second ? a.second > b.second : a.first < b.first;
}

void CMonitor::WriteCounts()
{
    // At SHUTDOWN no call is being counted any more: every thread's table can be read.
    std::map<std::string, unsigned long long> byName;
    {
        CAutoLock lock(m_lock);
        for (std::map<const void *, CThreadCounts *>::iterator it = m_threads.begin(); it != m_threads.end(); ++it)
            it->second->ForEach([&byName](const MethodRecord *pRecord, unsigned long long calls) {
                byName[pRecord->name] += calls; // one name may have had several MethodIDs
            });
    }
    std::vector<std::pair<std::string, unsigned long long> > sorted(byName.begin(), byName.end());
    std::sort(sorted.begin(), sorted.end(), MoreCallsFirst);

    const char *pszFile = getenv("CALLCOUNT_FILE");
    FILE *f = fopen(pszFile && *pszFile ? pszFile : kDefaultFile, "w");
    if (!f)
        return; // nowhere to report to; the VM is exiting and has no use for an error
    if (m_fOptionsKnown)
        fprintf(f, "# GetFinalInitializationOptions 0x%08lx\n", (unsigned long)m_dwFinalOptions);
    else
        fprintf(f, "# GetFinalInitializationOptions unavailable\n");
    for (size_t i = 0; i < sorted.size(); i++)
        fprintf(f, "%llu %s\n", sorted[i].second, sorted[i].first.c_str());
    fclose(f);
}

STDMETHODIMP CMonitor::NotifyEvent(JVM_EVENT_TYPE event, UniqueID event_id)
{
    if (event == JVM_EVENT_TYPE_CLASS_UNLOAD)
        RetireClass((ClassID)event_id);
    else if (event == JVM_EVENT_TYPE_CLASS_LOAD_FINISHED)
        EnableIfCounted((ClassID)event_id);
    else if (event == JVM_EVENT_TYPE_SHUTDOWN)
        WriteCounts();
    return S_OK;
}

STDMETHODIMP CMonitor::NotifyEvent2(JVM_EVENT_TYPE2 event2, UniqueID first_event_id, UniqueID second_event_id)
{
    (void)first_event_id;
    (void)second_event_id;
    // The options are final once every monitor has initialized.
    if (event2 == JVM_EVENT_TYPE2_MONITORS_INITIALIZED && m_pInfo4)
        m_fOptionsKnown = SUCCEEDED(m_pInfo4->GetFinalInitializationOptions(&m_dwFinalOptions));
    return S_OK;
}

// Events CallCount does not ask for, or has no use for.
STDMETHODIMP CMonitor::MethodExit2(MethodID method_id, StackID stack_id)
{
    (void)method_id;
    (void)stack_id;
    return S_OK;
}

STDMETHODIMP CMonitor::MethodExit(StackID stack_id)
{
    (void)stack_id;
    return S_OK;
}

STDMETHODIMP CMonitor::ExecuteByteCode(MethodID method_id, BYTE_CODE *pbyte_code, DWORD byte_code_offset)
{
    (void)method_id;
    (void)pbyte_code;
    (void)byte_code_offset;
    return S_OK;
}

STDMETHODIMP CMonitor::ExecuteSourceLine(MethodID method_id, DWORD line_number)
{
    (void)method_id;
    (void)line_number;
    return S_OK;
}

// ---- Class factory ------------------------------------------------------------------------

class CFactory final : public IClassFactory {
public:
    STDMETHOD(QueryInterface)(REFIID riid, void **ppv)
    {
        if (IsEqualIID(riid, IID_IUnknown) || IsEqualIID(riid, IID_IClassFactory)) {
            *ppv = static_cast<IClassFactory *>(this);
            AddRef();
            return S_OK;
        }
        *ppv = NULL;
        return E_NOINTERFACE;
    }

    // The factory is a static object: its references only keep the DLL loaded.
    STDMETHOD_(ULONG, AddRef)()
    {
        InterlockedIncrement(&g_cLocks);
        return 2;
    }
    STDMETHOD_(ULONG, Release)()
    {
        InterlockedDecrement(&g_cLocks);
        return 1;
    }

    STDMETHOD(CreateInstance)(IUnknown *pUnkOuter, REFIID riid, void **ppv)
    {
        *ppv = NULL;
        if (pUnkOuter)
            return CLASS_E_NOAGGREGATION;
        CMonitor *pMonitor = new (std::nothrow) CMonitor();
        if (!pMonitor)
            return E_OUTOFMEMORY;
        // QueryInterface takes the caller's reference; Release drops ours (and deletes on failure).
        HRESULT hr = pMonitor->QueryInterface(riid, ppv);
        pMonitor->Release();
        return hr;
    }

    STDMETHOD(LockServer)(BOOL fLock)
    {
        if (fLock)
            InterlockedIncrement(&g_cLocks);
        else
            InterlockedDecrement(&g_cLocks);
        return S_OK;
    }
};

static CFactory g_factory;

// ---- DLL exports (callcount.def) ------------------------------------------------------------

STDAPI DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv)
{
    if (!IsEqualCLSID(rclsid, CLSID_CallCount)) {
        *ppv = NULL;
        return CLASS_E_CLASSNOTAVAILABLE;
    }
    return g_factory.QueryInterface(riid, ppv);
}

STDAPI DllCanUnloadNow(void)
{
    return g_cObjects == 0 && g_cLocks == 0 ? S_OK : S_FALSE;
}

static const JEVMON_MONITOR_REGISTRATION g_registration = {
    &CLSID_CallCount, kKeyName, "CallCount - counts Java method calls per method", FALSE, 0,
    (const void *)DllGetClassObject,
};

STDAPI DllRegisterServer(void)
{
    return JevmonRegisterMonitor(&g_registration);
}

STDAPI DllUnregisterServer(void)
{
    return JevmonUnregisterMonitor(&g_registration);
}
