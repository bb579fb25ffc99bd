// GroovyWorkload - a fixed Groovy script for `make bench`'s real-program tables: dynamic dispatch
// through Groovy's call sites and metaclasses, closures, collections, GStrings.  Run with
// Debian's groovy jar: java -cp /usr/share/java/groovy-all.jar groovy.ui.GroovyMain GroovyWorkload.groovy N
int rounds = args ? args[0] as int : 40

class Account {
    String owner
    BigDecimal balance = 0
    def deposit(amount) { balance += amount; this }
}

long checksum = 0
rounds.times { round ->
    def accounts = (1..2000).collect { new Account(owner: "owner-${it % 300}") }
    accounts.eachWithIndex { a, i -> a.deposit(i % 17).deposit(round) }
    def byOwner = accounts.groupBy { it.owner }
    def totals = byOwner.collectEntries { owner, list -> [(owner): list.sum { it.balance }] }
    def top = totals.findAll { k, v -> v > 100 }.sort { -it.value }.take(10)
    checksum += top.keySet().join(',').size()
    def words = (1..3000).collect { "w${it * round % 211}".toUpperCase() }
    checksum += words.countBy { it }.size() + words.unique().size()
}
println "checksum $checksum"
// for BENCH_ONLY=calls: the work's own processor time, without the JIT's threads
System.err.println "main thread cpu ns ${java.lang.management.ManagementFactory.threadMXBean.currentThreadCpuTime}"
