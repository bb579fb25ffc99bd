# JRubyWorkload - a fixed Ruby script for `make bench`'s real-program tables: JRuby's interpreter and
# its JIT to JVM bytecode, blocks, hashes, strings.  Run with Debian's jruby (its java command line:
# bench.sh) and the number of rounds as the argument.
rounds = (ARGV[0] || 40).to_i

class Account
  attr_reader :owner, :balance
  def initialize(owner)
    @owner = owner
    @balance = 0
  end

  def deposit(amount)
    @balance += amount
    self
  end
end

checksum = 0
rounds.times do |round|
  accounts = (1..2000).map { |i| Account.new("owner-#{i % 300}") }
  accounts.each_with_index { |a, i| a.deposit(i % 17).deposit(round) }
  totals = accounts.group_by(&:owner).map { |owner, list| [owner, list.sum(&:balance)] }.to_h
  top = totals.select { |_, v| v > 100 }.sort_by { |_, v| -v }.first(10)
  checksum += top.map(&:first).join(',').size
  words = (1..3000).map { |i| "w#{i * round % 211}".upcase }
  checksum += words.group_by(&:itself).size + words.uniq.size
end
puts "checksum #{checksum}"
